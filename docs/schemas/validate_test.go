package schemas_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi/datamodel"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hygiene-dev/hygiene/docs/schemas"
	"github.com/hygiene-dev/hygiene/docs/schemas/schematest"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// metaschema2020 is the draft 2020-12 metaschema, which the validator
// carries.
const metaschema2020 = "https://json-schema.org/draft/2020-12/schema"

// Each schema is a valid draft 2020-12 schema (validated against the
// metaschema, and compiled with every $ref resolved), with an $id.
func TestSchemasAreValid(t *testing.T) {
	c := jsonschema.NewCompiler()
	meta, err := c.Compile(metaschema2020)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range schemas.Names {
		b, _ := schemas.Schema(name)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", schemas.File(name), err)
		}
		if err := meta.Validate(doc); err != nil {
			t.Errorf("%s is no draft 2020-12 schema: %v", schemas.File(name), err)
		}
		if id := schemas.ID(name); !strings.HasSuffix(id, "/docs/schemas/"+schemas.File(name)) {
			t.Errorf("%s: $id %q does not name its file", schemas.File(name), id)
		}
	}
	if _, err := schematest.Compiled(); err != nil {
		t.Fatal(err)
	}
}

// The OpenAPI document, as the file and as served (bundled), is valid
// against the OpenAPI 3.1 schema (as libopenapi embeds it); every $ref of
// the served one resolves inside it, and its component schemas compile
// (the bundled schemas' own refs resolved by $id).
func TestOpenAPIIsValid(t *testing.T) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://spec.openapis.org/oas/3.1/schema/2022-10-07", mustJSON(t, []byte(datamodel.OpenAPI31SchemaData))); err != nil {
		t.Fatal(err)
	}
	oas, err := c.Compile("https://spec.openapis.org/oas/3.1/schema/2022-10-07")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string][]byte{"openapi.json": file, "served": schemas.OpenAPI()} {
		if err := oas.Validate(mustJSON(t, doc)); err != nil {
			t.Errorf("%s is no OpenAPI 3.1 document: %v", name, err)
		}
	}
	served := mustJSON(t, schemas.OpenAPI())
	var refs []string
	walkRefs(served, &refs)
	for _, ref := range refs {
		if !strings.HasPrefix(ref, "#/") {
			t.Errorf("the served document refers outside itself: %s", ref)
			continue
		}
		if schematest.Lookup(served, ref) == nil {
			t.Errorf("$ref %s does not resolve", ref)
		}
	}
	sc := jsonschema.NewCompiler()
	const base = "http://127.0.0.1:8080/openapi.json"
	if err := sc.AddResource(base, served); err != nil {
		t.Fatal(err)
	}
	for _, component := range []string{"Job", "ReadyPayload", "Problem"} {
		s, err := sc.Compile(base + "#/components/schemas/" + component)
		if err != nil {
			t.Fatalf("components.schemas.%s: %v", component, err)
		}
		if component == "Job" {
			example, _ := os.ReadFile("../../examples/anthropic-damaged.json")
			if err := s.Validate(mustJSON(t, example)); err != nil {
				t.Errorf("the served Job schema refuses an example: %v", err)
			}
		}
	}
}

func mustJSON(t *testing.T, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// walkRefs lists the $refs of the document v, not those inside a schema
// resource of its own (an object with an $id: its refs resolve against
// it, as compiling it checks).
func walkRefs(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["$id"]; ok {
			return
		}
		if ref, ok := v["$ref"].(string); ok {
			*out = append(*out, ref)
		}
		for _, x := range v {
			walkRefs(x, out)
		}
	case []any:
		for _, x := range v {
			walkRefs(x, out)
		}
	}
}

// examples are the jobs of examples/ (the session file aside).
func examples(t *testing.T) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob("../../examples/*.json")
	if err != nil || len(paths) < 10 {
		t.Fatalf("examples: %v, %d files", err, len(paths))
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

// generated are jobs of the realistic generators: each damage mix for each
// provider family, and realistic-shape histories (with model switches,
// stand-in turns and extra roles) in a job envelope.
func generated(t *testing.T) map[string][]byte {
	t.Helper()
	targets := []transcript.Target{
		{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"},
		{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4-5-20250929-v1:0"},
		{Provider: "openai", API: "openai-responses", Model: "gpt-5.2"},
		{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
		{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"},
		{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"},
	}
	mixes := map[string]sessiongen.Damage{"realistic": sessiongen.Realistic(), "heavy": sessiongen.Heavy(), "issue16": sessiongen.Issue16()}
	out := map[string][]byte{}
	for _, tg := range targets {
		for mix, d := range mixes {
			g := sessiongen.New(sessiongen.Config{Seed: 7, Messages: 30, Images: 1, ImageWidth: 64, ImageHeight: 48,
				Damage: d, Target: tg, Tenants: 3, Sessions: 5, RealLengthIDs: true})
			for i := range 3 {
				_, job := g.Job(i)
				out[fmt.Sprintf("%s/%s/%d", tg.API, mix, i)] = job
			}
		}
		real := sessiongen.RealShapes(sessiongen.RealConfig{Seed: 11, Target: tg, Foreign: true, StandIns: true, ExtraRoles: true})
		env, _ := json.Marshal(map[string]any{"job_id": "real-" + tg.API, "tenant": "acme", "session_id": "agent:main:cli:" + tg.API,
			"target": tg, "options": map[string]any{"now_ms": 1776000999000}})
		out["real/"+tg.API] = append(append(env[:len(env)-1:len(env)-1], `,"messages":`...), append(real.History(), '}')...)
	}
	return out
}

// Every example job and every generated job is one the job schema accepts.
func TestExamplesAndGeneratedJobsAreJobs(t *testing.T) {
	for name, job := range examples(t) {
		if err := schematest.Validate(schemas.Job, job); err != nil {
			t.Errorf("examples/%s: %v", name, err)
		}
	}
	for name, job := range generated(t) {
		if err := schematest.Validate(schemas.Job, job); err != nil {
			t.Errorf("generated %s: %v", name, err)
		}
	}
}

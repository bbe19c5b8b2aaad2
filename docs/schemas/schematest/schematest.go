// Package schematest validates records against the published schemas
// (package schemas) with a maintained JSON Schema validator
// (github.com/santhosh-tekuri/jsonschema/v6, draft 2020-12), for the tests
// of the packages that produce or take them: the pipeline's payloads, the
// HTTP answers, the integration suite's records over Kafka. The validator
// is a test dependency only: the worker embeds the schemas, not it.
//
// May import: docs/schemas, internal/transport.
package schematest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/hygiene-dev/hygiene/docs/schemas"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// Compiled is the three schemas compiled, by name (schemas.Names); every
// schema is checked against the draft 2020-12 metaschema as it compiles.
func Compiled() (map[string]*jsonschema.Schema, error) {
	compileOnce.Do(func() { compiled, compileErr = compile() })
	return compiled, compileErr
}

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
	compileErr  error
)

func compile() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	for _, name := range schemas.Names {
		b, err := schemas.Schema(name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", schemas.File(name), err)
		}
		if err := c.AddResource(schemas.ID(name), doc); err != nil {
			return nil, err
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, name := range schemas.Names {
		s, err := c.Compile(schemas.ID(name))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", schemas.File(name), err)
		}
		out[name] = s
	}
	return out, nil
}

// Validate checks the JSON document data against schema name; the error
// is the validator's (a *jsonschema.ValidationError when data is JSON that
// the schema refuses).
func Validate(name string, data []byte) error {
	all, err := Compiled()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return all[name].Validate(v)
}

// Job fails tb unless data is a job the schema accepts.
func Job(tb testing.TB, data []byte) {
	tb.Helper()
	check(tb, schemas.Job, data)
}

// Payload fails tb unless data is a ready payload the schema accepts.
func Payload(tb testing.TB, data []byte) {
	tb.Helper()
	check(tb, schemas.Payload, data)
}

// DeadLetter fails tb unless rec, a dead-letter record, is one the schema
// accepts as DeadLetterJSON gives it.
func DeadLetter(tb testing.TB, rec transport.Record) {
	tb.Helper()
	check(tb, schemas.DeadLetter, DeadLetterJSON(rec))
}

func check(tb testing.TB, name string, data []byte) {
	tb.Helper()
	if err := Validate(name, data); err != nil {
		tb.Errorf("the %s schema refuses %.200q: %v", name, data, err)
	}
}

// DeadLetterJSON is rec as the dead-letter schema describes a record: its
// key, its headers (the first value of each name) and its value (the
// parsed JSON when it is JSON, else its text when it is UTF-8, else null),
// as a client builds it from what it consumed.
func DeadLetterJSON(rec transport.Record) []byte {
	headers := map[string]string{}
	for _, h := range rec.Headers {
		if _, ok := headers[h.Key]; !ok {
			headers[h.Key] = string(h.Value)
		}
	}
	var value any
	switch {
	case json.Valid(rec.Value):
		value = json.RawMessage(rec.Value)
	case utf8.Valid(rec.Value):
		value = string(rec.Value)
	}
	out, err := json.Marshal(struct {
		Key     *string           `json:"key"`
		Headers map[string]string `json:"headers"`
		Value   any               `json:"value"`
	}{keyOf(rec), headers, value})
	if err != nil {
		panic(err) // strings, a map of strings and valid JSON always encode
	}
	return out
}

func keyOf(rec transport.Record) *string {
	if rec.Key == nil {
		return nil
	}
	k := string(rec.Key)
	return &k
}

// Fields are the fields a validation error blames, each as a dotted path
// the way the worker's errors name a field ("options.images.max_frames",
// "target", "messages"): the location of each failed keyword, and for a
// keyword about members (additionalProperties, required,
// dependentRequired) each member it names. The order is sorted.
func Fields(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		at := dotted(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				seen[join(at, p)] = true
			}
		case *kind.Required:
			for _, p := range k.Missing {
				seen[join(at, p)] = true
			}
		case *kind.DependentRequired:
			for _, p := range k.Missing {
				seen[join(at, p)] = true
			}
		default:
			if len(e.Causes) == 0 {
				seen[at] = true
			}
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// dotted writes an instance location as the worker names a field:
// members joined with dots, array indexes in brackets.
func dotted(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		if tok != "" && strings.Trim(tok, "0123456789") == "" {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func join(at, member string) string {
	if at == "" {
		return member
	}
	return at + "." + member
}

// SanitizeResponse fails tb unless body is what the OpenAPI document
// (served form, schemas bundled) says POST /v1/sanitize answers with
// status: a ready payload for 200, a problem for the others; a status the
// document does not list fails too.
func SanitizeResponse(tb testing.TB, status int, body []byte) {
	tb.Helper()
	s, err := responseSchema(status)
	if err != nil {
		tb.Errorf("POST /v1/sanitize %d: %v", status, err)
		return
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err == nil {
		err = s.Validate(v)
	}
	if err != nil {
		tb.Errorf("POST /v1/sanitize %d: the OpenAPI document refuses the body %.200q: %v", status, body, err)
	}
}

// openAPIBase is the URL the served OpenAPI document is compiled at.
const openAPIBase = "http://127.0.0.1:8080/openapi.json"

var (
	responsesOnce sync.Once
	responses     *jsonschema.Compiler
	responsesDoc  map[string]any
	responsesErr  error
)

// responseSchema compiles the schema of the sanitize answer with status,
// following the response's $ref into components.
func responseSchema(status int) (*jsonschema.Schema, error) {
	responsesOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemas.OpenAPI()))
		if err != nil {
			responsesErr = err
			return
		}
		responses = jsonschema.NewCompiler()
		responses.DefaultDraft(jsonschema.Draft2020)
		responsesDoc, _ = doc.(map[string]any)
		if responsesErr = responses.AddResource(openAPIBase, doc); responsesErr != nil {
			return
		}
		// The bundled schemas are known by their $id once compiled (the
		// compiler does not look for them in components, which is
		// OpenAPI's, not JSON Schema's): the payload's $ref to the job's
		// target finds the Job component so.
		components, _ := Lookup(responsesDoc, "/components/schemas").(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(components)) { // Job before ReadyPayload
			if _, err := responses.Compile(openAPIBase + "#/components/schemas/" + name); err != nil && responsesErr == nil {
				responsesErr = fmt.Errorf("components.schemas.%s: %w", name, err)
			}
		}
	})
	if responsesErr != nil {
		return nil, responsesErr
	}
	at := "/paths/~1v1~1sanitize/post/responses/" + fmt.Sprint(status)
	r, ok := Lookup(responsesDoc, at).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the OpenAPI document lists no such response")
	}
	if ref, ok := r["$ref"].(string); ok {
		at = strings.TrimPrefix(ref, "#")
	}
	return responses.Compile(openAPIBase + "#" + at + "/content/application~1json/schema")
}

// Lookup follows a JSON pointer ("/components/schemas/Job", or with the
// "#" of a $ref) in doc, a decoded JSON document; nil when it leads nowhere.
func Lookup(doc any, pointer string) any {
	pointer = strings.TrimPrefix(pointer, "#")
	for tok := range strings.SplitSeq(strings.TrimPrefix(pointer, "/"), "/") {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		doc = m[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
	}
	return doc
}

package wiresdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// body is one rendered request body and where it came from.
type body struct {
	name   string
	format wire.Format
	json   []byte
	// model is the target model, for the contract's body rules ("" for
	// the chain goldens, which package wire checks itself).
	model string
}

// goldenBodies reads the golden bodies of package wire (every golden chain
// transcript of internal/stages rendered for its target).
func goldenBodies(t *testing.T) []body {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "internal", "wire", "testdata", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden bodies: %v", err)
	}
	var out []body
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var g struct {
			Format  wire.Format     `json:"request_format"`
			Request json.RawMessage `json:"request"`
		}
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, body{name: filepath.Base(p), format: g.Format, json: g.Request})
	}
	return out
}

// finalBodies reads the final-turn goldens of package wire (every
// final-turn case per target; a case the renderer refuses has no body).
func finalBodies(t *testing.T) []body {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "internal", "wire", "testdata", "final", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no final-turn goldens: %v", err)
	}
	var out []body
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var cases map[string]struct {
			Format  wire.Format     `json:"request_format"`
			Model   string          `json:"model"`
			Request json.RawMessage `json:"request"`
		}
		if err := json.Unmarshal(raw, &cases); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for name, c := range cases {
			if c.Request != nil {
				out = append(out, body{name: filepath.Base(p) + " " + name, format: c.Format, json: c.Request, model: c.Model})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// generatedTargets cover every format and the dialects with wire-only repairs.
var generatedTargets = []string{
	"anthropic/anthropic-messages/claude-opus-4-6",
	"amazon-bedrock/bedrock-converse-stream/anthropic.claude-sonnet-4-20250514-v1:0",
	"openai/openai-completions/gpt-4.1",
	"deepseek/openai-completions/deepseek-chat",
	"moonshot/openai-completions/kimi-k2-thinking",
	"openai/openai-responses/gpt-5",
	"google/google-generative-ai/gemini-2.5-pro",
	"google/google-generative-ai/gemini-3-pro-preview",
	"mistral/mistral-conversations/mistral-large-latest",
}

// generatedBodies runs generated damaged histories through the processor
// (the whole chain, then render: request, with a system prompt and a tool)
// and returns the payloads' request bodies.
func generatedBodies(t *testing.T, seeds int) []body {
	t.Helper()
	images.Startup()
	imgs, err := images.NewProcessor(images.Config{Workers: 2, MaxDecodedBytes: 256 << 20, CacheBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(imgs.Close)
	proc := pipeline.NewProcessor(config.Default().Limits, pipeline.ResolverFor(config.Default()), pipeline.Deps{Stages: stages.Default(imgs)})
	var out []body
	for seed := 1; seed <= seeds; seed++ {
		for _, target := range generatedTargets {
			tg, err := policy.ParseTarget(target)
			if err != nil {
				t.Fatal(err)
			}
			history := sessiongen.New(sessiongen.Config{Seed: uint64(seed), Messages: 30, ToolCallDensity: 0.7, Damage: sessiongen.Heavy(),
				TextChars: 60, ToolResultChars: 80, Images: 2, ImageWidth: 64, ImageHeight: 48}).History()
			tr, err := transcript.FromMessages(history, transcript.Target(tg))
			if err != nil {
				t.Fatal(err)
			}
			tr.Options.Render = wire.RenderRequest
			tr.Options.System = json.RawMessage(`[{"type":"text","text":"Be brief."},{"type":"text","text":"Cite files."}]`)
			tr.Options.Tools = []transcript.Tool{{Name: "read", Description: "Read a file",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
			tr.Options.Next = json.RawMessage(`[{"role":"user","content":"Go on.","timestamp":1776009999000}]`)
			outcome, err := proc.Sanitize(context.Background(), tr)
			if err != nil || !outcome.Ready {
				t.Fatalf("seed %d %s: %v %s %s", seed, target, err, outcome.Code, outcome.Error)
			}
			var payload struct {
				Format  wire.Format     `json:"request_format"`
				Request json.RawMessage `json:"request"`
			}
			if err := json.Unmarshal(outcome.Payload, &payload); err != nil {
				t.Fatal(err)
			}
			out = append(out, body{name: fmt.Sprintf("seed %d %s", seed, target), format: payload.Format, json: payload.Request, model: tg.Model})
		}
	}
	return out
}

// TestSDKRoundTrip: every body unmarshals into its SDK type and marshals
// back to the same JSON.
func TestSDKRoundTrip(t *testing.T) {
	bodies := append(append(goldenBodies(t), finalBodies(t)...), generatedBodies(t, 12)...)
	seen := map[wire.Format]int{}
	for _, b := range bodies {
		seen[b.format]++
		if err := roundTrip(b.format, b.json); err != nil {
			t.Errorf("%s (%s): %v", b.name, b.format, err)
		}
	}
	for _, f := range wire.Formats {
		if seen[f] == 0 {
			t.Errorf("no %s body was checked", f)
		}
	}
	t.Logf("bodies checked per format: %v", seen)
}

// TestRoundTripCatchesUnknownAndDropped makes sure the check fails when a
// body has a member the SDK does not know, in every format: the round trip
// must not keep unknown members silently.
func TestRoundTripCatchesUnknownAndDropped(t *testing.T) {
	bad := map[wire.Format]string{
		wire.AnthropicMessages: `{"messages":[{"role":"user","content":[{"type":"text","text":"hi","colour":"red"}]}]}`,
		wire.OpenAIChat:        `{"messages":[{"role":"user","content":"hi","colour":"red"}]}`,
		wire.MistralChat:       `{"messages":[{"role":"user","content":"hi","colour":"red"}]}`,
		wire.OpenAIResponses:   `{"input":[{"type":"message","role":"user","content":"hi","colour":"red"}]}`,
		wire.GeminiContents:    `{"contents":[{"role":"user","parts":[{"text":"hi","colour":"red"}]}]}`,
		wire.BedrockConverse:   `{"messages":[{"role":"user","content":[{"text":"hi","colour":"red"}]}]}`,
	}
	for f, js := range bad {
		if err := roundTrip(f, []byte(js)); err == nil {
			t.Errorf("%s: an unknown member passed the round trip", f)
		}
	}
}

// roundTrip checks one body against its SDK type.
func roundTrip(f wire.Format, body []byte) error {
	want, back, err := viaFormatSDK(f, body)
	if err != nil {
		return err
	}
	if d := firstDiff("", want, back); d != "" {
		return fmt.Errorf("SDK round trip differs: %s", d)
	}
	return nil
}

// viaFormatSDK reads body into its format's SDK type and writes it back
// with the SDK: the body as decoded (want) and as the SDK serializes it
// (back), both without the runner's model parameters.
func viaFormatSDK(f wire.Format, body []byte) (want, back map[string]any, err error) {
	if err := decode(body, &want); err != nil {
		return nil, nil, err
	}
	var got []byte
	switch f {
	case wire.AnthropicMessages:
		got, err = viaSDK[anthropic.MessageNewParams](withModel(want, "claude-opus-4-6", true))
		delete(want, "model")
		delete(want, "max_tokens")
	case wire.OpenAIChat, wire.MistralChat:
		if err := stripChatExtensions(want, f); err != nil {
			return nil, nil, err
		}
		got, err = viaSDK[openai.ChatCompletionNewParams](withModel(want, "gpt-4.1", false))
		delete(want, "model")
	case wire.OpenAIResponses:
		got, err = viaSDK[responses.ResponseNewParams](withModel(want, "gpt-5", false))
		delete(want, "model")
	case wire.GeminiContents:
		got, err = viaGenai(body)
	case wire.BedrockConverse:
		got, err = viaBedrock(body)
	default:
		return nil, nil, fmt.Errorf("unknown format %q", f)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := decode(got, &back); err != nil {
		return nil, nil, err
	}
	delete(back, "model")
	delete(back, "max_tokens")
	return want, back, nil
}

// viaSDK unmarshals v's JSON into the SDK parameter type P and marshals it.
func viaSDK[P any](v map[string]any) ([]byte, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var p P
	if err := json.Unmarshal(js, &p); err != nil {
		return nil, fmt.Errorf("unmarshal into %T: %w", p, err)
	}
	return json.Marshal(p)
}

// geminiRequest is the part of the generateContent REST body the renderer
// writes, with the SDK's own types for its members.
type geminiRequest struct {
	Contents          []*genai.Content `json:"contents"`
	SystemInstruction *genai.Content   `json:"systemInstruction,omitempty"`
	Tools             []*genai.Tool    `json:"tools,omitempty"`
}

func viaGenai(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var r geminiRequest
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("unmarshal into genai types: %w", err)
	}
	return json.Marshal(r)
}

// withModel adds the runner's model parameters the SDK types require.
func withModel(v map[string]any, model string, maxTokens bool) map[string]any {
	out := make(map[string]any, len(v)+2)
	for k, x := range v {
		out[k] = x
	}
	out["model"] = model
	if maxTokens {
		out["max_tokens"] = 1024
	}
	return out
}

// stripChatExtensions checks and removes the members Chat Completions
// dialects have beyond OpenAI's types: reasoning_content (a string, on
// assistant turns with tool_calls only) and Mistral's tool-message name.
func stripChatExtensions(v map[string]any, f wire.Format) error {
	msgs, _ := v["messages"].([]any)
	for i, m := range msgs {
		msg, _ := m.(map[string]any)
		if rc, ok := msg["reasoning_content"]; ok {
			if _, isString := rc.(string); !isString || msg["role"] != "assistant" || msg["tool_calls"] == nil || f == wire.MistralChat {
				return fmt.Errorf("messages[%d].reasoning_content = %v on %v", i, rc, msg["role"])
			}
			delete(msg, "reasoning_content")
		}
		if prefix, ok := msg["prefix"]; ok {
			if prefix != true || msg["role"] != "assistant" || f != wire.MistralChat || i != len(msgs)-1 {
				return fmt.Errorf("messages[%d].prefix = %v on %v of %s", i, prefix, msg["role"], f)
			}
			delete(msg, "prefix")
		}
		if name, ok := msg["name"]; ok && msg["role"] == "tool" {
			if _, isString := name.(string); !isString || f != wire.MistralChat {
				return fmt.Errorf("messages[%d].name on a tool message of %s", i, f)
			}
			delete(msg, "name")
		}
	}
	return nil
}

func decode(js []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	return dec.Decode(v)
}

// firstDiff names the first path where a and b differ ("" when equal).
// Numbers compare by value.
func firstDiff(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: object became %T", path, b)
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			xv, inA := x[k]
			yv, inB := y[k]
			switch {
			case !inB:
				return fmt.Sprintf("%s.%s dropped", path, k)
			case !inA:
				return fmt.Sprintf("%s.%s added (%v)", path, k, yv)
			}
			if d := firstDiff(path+"."+k, xv, yv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: array of %d became %v", path, len(x), shortValue(b))
		}
		for i := range x {
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		y, ok := b.(json.Number)
		if ok {
			xf, _ := x.Float64()
			yf, _ := y.Float64()
			if xf == yf {
				return ""
			}
		}
	}
	if reflect.DeepEqual(a, b) {
		return ""
	}
	return fmt.Sprintf("%s: %v became %v", path, shortValue(a), shortValue(b))
}

func shortValue(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// captureClient records the body of the one request the SDK sends and
// answers with an error, so nothing leaves the process.
type captureClient struct{ body []byte }

var errCaptured = errors.New("captured")

func (c *captureClient) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		c.body, _ = io.ReadAll(r.Body)
	}
	return nil, errCaptured
}

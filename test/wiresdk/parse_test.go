package wiresdk

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// TestParseSDKBodies: for bodies built by each provider's SDK (every golden
// and generated body, and each format's feature body of internal/wire,
// read into the SDK's request type and serialized by the SDK), parsing and
// rendering in the same format gives the same body, as the SDK reads it.
func TestParseSDKBodies(t *testing.T) {
	bodies := append(goldenBodies(t), generatedBodies(t, 3)...)
	for _, f := range wire.Formats {
		raw, err := os.ReadFile(filepath.Join("..", "..", "internal", "wire", "testdata", "parse", string(f)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, body{name: "feature body", format: f, json: raw})
	}
	seen := map[wire.Format]int{}
	for _, b := range bodies {
		_, built, err := viaFormatSDK(b.format, b.json)
		if err != nil {
			t.Fatalf("%s (%s): %v", b.name, b.format, err)
		}
		sdkBody, err := json.Marshal(built)
		if err != nil {
			t.Fatal(err)
		}
		src := wire.DefaultSource(b.format)
		src.Model = "gemini-2.5-pro" // no Gemini 3 sentinel is added on the way back
		parsed, err := wire.Parse(b.format, sdkBody, src, b.format)
		if err != nil {
			t.Fatalf("%s (%s): %v", b.name, b.format, err)
		}
		tr, err := transcript.FromMessages(parsed.Messages, src)
		if err != nil {
			t.Fatalf("%s (%s): %v", b.name, b.format, err)
		}
		rendered := wire.Render(nil, b.format, policy.Resolve(src), tr.Messages, wire.Request{System: parsed.System, Tools: parsed.Tools})
		_, again, err := viaFormatSDK(b.format, rendered)
		if err != nil {
			t.Fatalf("%s (%s): the rendered body: %v", b.name, b.format, err)
		}
		if b.format == wire.OpenAIResponses {
			plainOutputText(built)
		}
		if d := firstDiff("", built, again); d != "" {
			t.Errorf("%s (%s): render(parse(B)) differs from the SDK's B: %s", b.name, b.format, d)
		}
		seen[b.format]++
	}
	for _, f := range wire.Formats {
		if seen[f] == 0 {
			t.Errorf("no %s body was checked", f)
		}
	}
}

// plainOutputText writes an assistant message item whose content is one
// output_text part without annotations as the same text in string form,
// which the renderer writes for an assistant text that names no output
// message id. The two are the same input to the API; the SDK's input union
// reads the output-message form (id, status) as an EasyInputMessage and
// drops the id, so an SDK-built body has the array form without the id.
func plainOutputText(body map[string]any) {
	items, _ := body["input"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		parts, _ := m["content"].([]any)
		if m["role"] != "assistant" || m["id"] != nil || len(parts) != 1 {
			continue
		}
		part, _ := parts[0].(map[string]any)
		if ann, _ := part["annotations"].([]any); part["type"] == "output_text" && len(ann) == 0 {
			m["content"] = part["text"]
		}
	}
}

package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// FuzzRender: any message list the codec accepts renders, in every format,
// dialect and final-turn treatment, to valid JSON, the same bytes twice,
// that the contract's body rules can read, without panicking.
func FuzzRender(f *testing.F) {
	f.Add([]byte(history(userText, callTurn, imageResult, answer)))
	f.Add([]byte(history(userText, thinkingCall, result1)))
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"thinking","thinking":"x","thinkingSignature":"{\"id\":\"rs_1\",\"type\":\"reasoning\",\"summary\":7}"},{"type":"toolCall","id":"a|fc_b","name":"n","arguments":[1]}]},{"role":"toolResult","content":"s"}]`))
	f.Add([]byte(`[{"role":"user","content":[{"type":"image","data":"a\/b","mimeType":"image\/png"},{"type":"text","text":"\u00e9\n"}]},{"role":"compactionSummary","summary":"s"}]`))
	// documents and images by reference, in every source (the model's extension of spec §1.3)
	f.Add([]byte(`[{"role":"user","content":[{"type":"document","data":"JVBERi0=","mimeType":"application/pdf","name":"a b.pdf"},{"type":"document","text":"t\u00e9","name":""},{"type":"document","url":"https://x/a.pdf"},{"type":"document","fileId":"file-1","mimeType":7},{"type":"document","s3Uri":"s3://b/k","s3BucketOwner":"1"},{"type":"image","url":"https://x/a.png"},{"type":"image","fileId":"file_1"},{"type":"image","s3Uri":"s3://b/i"}]},{"role":"toolResult","toolCallId":"c","content":[{"type":"document","data":"AA==","mimeType":"text/csv"}]},{"role":"assistant","content":[{"type":"document","url":"u"}]}]`))
	if paths, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.json")); len(paths) > 0 {
		for _, p := range paths {
			raw, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			var job struct {
				Messages json.RawMessage `json:"messages"`
			}
			if json.Unmarshal(raw, &job) == nil && len(job.Messages) > 0 {
				f.Add([]byte(job.Messages))
			}
		}
	}
	policies := []policy.Policy{
		policy.Resolve(transcript.Target{Provider: "deepseek", API: "openai-completions", Model: "deepseek-chat"}),
		policy.Resolve(transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-3-pro-preview"}),
		policy.Resolve(transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}),
	}
	req := Request{System: json.RawMessage(`"s"`), Tools: []transcript.Tool{{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := transcript.FromMessages(data, transcript.Target{Provider: "x", API: "y"})
		if err != nil {
			return
		}
		for _, p := range policies {
			for _, format := range Formats {
				for _, final := range []Final{FinalAsIs, FinalTrim, FinalPrefix} {
					req.Final = final
					body := Render(nil, format, p, tr.Messages, req)
					if !json.Valid(body) {
						t.Fatalf("%s: invalid JSON: %s", format, body)
					}
					if again := Render(nil, format, p, tr.Messages, req); !bytes.Equal(body, again) {
						t.Fatalf("%s: not deterministic", format)
					}
					if _, err := contract.CheckBody(format, body, p.Model); err != nil {
						t.Fatalf("%s: the contract cannot read the body: %v", format, err)
					}
				}
			}
		}
	})
}

// FuzzParse: any bytes (seeded with every shape of the request-body
// survey) parse in every format without panicking, and valid
// JSON (what the job decode hands Parse) that parses gives a message array
// the job decode accepts and every renderer writes as valid JSON, the same
// bytes twice.
func FuzzParse(f *testing.F) {
	for _, format := range Formats {
		raw, err := os.ReadFile(filepath.Join("testdata", "parse", string(format)+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	for format := range documentKeeps {
		f.Add(documentBody(f, format))
	}
	f.Add([]byte(`{"input":"hi","contents":[{"role":"model","parts":[{"functionCall":{"name":"n"}}]},{"parts":[{"functionResponse":{"name":"n","response":{"x":[1]}}},{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}]}`))
	f.Add([]byte(geminiSnake))
	// every shape of the request-body survey (docs/real-shapes.md), one
	// body per format and SDK variant
	for _, b := range sessiongen.AllBodies(1) {
		f.Add(b.JSON)
	}
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"s"},{"type":"image_url","image_url":{"url":"data:image\/png;base64,AA=="}}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"n","arguments":"{\"a\":"}}]}]}`))
	src := transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-3-pro-preview"}
	p := policy.Resolve(src)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range Formats {
			for _, target := range []Format{in, AnthropicMessages, GeminiContents} {
				parsed, err := Parse(in, data, src, target)
				if err != nil || !json.Valid(data) {
					continue
				}
				tr, err := transcript.FromMessages(parsed.Messages, src)
				if err != nil {
					t.Fatalf("%s: parsed messages do not decode: %v\n%s", in, err, parsed.Messages)
				}
				body := Render(nil, target, p, tr.Messages, Request{System: parsed.System, Tools: parsed.Tools})
				if !json.Valid(body) {
					t.Fatalf("%s → %s: invalid JSON: %s", in, target, body)
				}
				again, _ := Parse(in, data, src, target)
				if !bytes.Equal(again.Messages, parsed.Messages) {
					t.Fatalf("%s: not deterministic", in)
				}
			}
		}
	})
}

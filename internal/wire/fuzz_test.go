package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
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

package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// finalTargets are the targets of the final-turn goldens: one per format,
// plus a Claude that takes prefill and Mistral with continue: true.
var finalTargets = map[string]struct {
	target string
	prefix bool
	callID string
}{
	"anthropic-opus-4-6":   {"anthropic/anthropic-messages/claude-opus-4-6", false, "toolu_01XFDUDYJgAACzvnptvVoYEL"},
	"anthropic-claude-3-7": {"anthropic/anthropic-messages/claude-3-7-sonnet-20250219", false, "toolu_01Wq8bT3uKpJ4mR6nZsE2vHc"},
	"bedrock-sonnet-4-6":   {"amazon-bedrock/bedrock-converse-stream/us.anthropic.claude-sonnet-4-6-v1:0", false, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"},
	"openai-chat":          {"openai/openai-completions/gpt-4.1", false, "call_Qm3xR7kT2pLw9vNc4HsY8aBd"},
	"openai-responses":     {"openai/openai-responses/gpt-5", false, "call_Vb7nK2mQ9xL4pR8sT1wY6zHc|fc_68c1f2a9b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6a7"},
	"gemini":               {"google/google-generative-ai/gemini-2.5-pro", false, "read_1776001001000_1"},
	"mistral":              {"mistral/mistral-conversations/mistral-large-latest", false, "D681PevKs"},
	"mistral-continue":     {"mistral/mistral-conversations/mistral-large-latest", true, "D681PevKs"},
}

// finalHistories are the final-turn cases: the history's end, and the job's next.
func finalHistories(callID string) map[string][2]string {
	id := transcript.JSONString(callID)
	user := `{"role":"user","content":"What does go.mod pin the toolchain to?","timestamp":1776001000000}`
	call := `{"role":"assistant","content":[{"type":"text","text":"Let me read go.mod."},{"type":"toolCall","id":` + string(id) +
		`,"name":"read","arguments":{"path":"go.mod"}}],"stopReason":"toolUse","timestamp":1776001001000}`
	result := `{"role":"toolResult","toolCallId":` + string(id) + `,"toolName":"read","content":[{"type":"text","text":"toolchain go1.26.10"}],"isError":false,"timestamp":1776001002000}`
	answer := `{"role":"assistant","content":[{"type":"text","text":"It pins go1.26.10.\n"}],"stopReason":"stop","timestamp":1776001003000}`
	next := `[{"role":"user","content":"Is that the newest patch release?","timestamp":1776001004000}]`
	return map[string][2]string{
		"ends-with-user":              {history(user), ""},
		"ends-with-tool-results":      {history(user, call, result), ""},
		"ends-with-assistant":         {history(user, call, result, answer), ""},
		"ends-with-assistant-next":    {history(user, call, result, answer), next},
		"ends-with-tool-call-next":    {history(user, call), `[` + result + `]`},
		"ends-with-tool-results-next": {history(user, call, result), next},
	}
}

// TestGoldenFinalTurns renders every final-turn case for every target and
// compares with testdata/final/<target>.json (go test -update rewrites):
// the body (with the golden system prompt and tool, and the model test/wiresdk
// checks it for), or the unsendable sentence. Every body passes the contract's
// body rules, and the renderer refuses exactly the histories whose plain
// render the contract refuses for its final turn and that neither a trim
// nor Mistral's prefix makes sendable.
func TestGoldenFinalTurns(t *testing.T) {
	for name, ft := range finalTargets {
		t.Run(name, func(t *testing.T) {
			tg, err := policy.ParseTarget(ft.target)
			if err != nil {
				t.Fatal(err)
			}
			p := policy.Resolve(tg)
			f := FormatFor(p)
			out := map[string]json.RawMessage{}
			for cas, h := range finalHistories(ft.callID) {
				tr, err := transcript.FromMessages([]byte(h[0]), tg)
				if err != nil {
					t.Fatal(err)
				}
				if ft.prefix && h[1] != "" {
					continue // continue and next exclude each other (TestProcessFinalTurn)
				}
				tr.Options = transcript.Options{Render: RenderRequest, Next: json.RawMessage(h[1]), Continue: ft.prefix}
				if err := PlaceNext(tr); err != nil {
					t.Fatal(err)
				}
				final, refusal := FinalTurn(p, tr.Messages, tr.Options)
				plain := Render(nil, f, p, tr.Messages, Request{})
				res, err := contract.CheckBody(f, plain, p.Model)
				if err != nil {
					t.Fatal(err)
				}
				refused := res.Counts[contract.RuleFinalTurn] > 0
				if refusal != nil && !refused || refusal == nil && final == FinalAsIs && refused {
					t.Errorf("%s: the renderer says %v, the contract %s", cas, refusal, res.Summary())
				}
				if refusal != nil {
					out[cas] = json.RawMessage(`{"unsendable":` + string(transcript.JSONString(refusal.Error())) + `}`)
					continue
				}
				req := testRequest
				req.Final = final
				body := Render(nil, f, p, tr.Messages, req)
				if res, _ := contract.CheckBody(f, body, p.Model); !res.OK() {
					t.Errorf("%s: the body breaks the contract: %s\n%s", cas, res.Summary(), body)
				}
				out[cas] = json.RawMessage(`{"request_format":"` + string(f) + `","model":` + string(transcript.JSONString(p.Model)) + `,"request":` + string(body) + `}`)
			}
			compareGolden(t, filepath.Join("testdata", "final", name+".json"), out)
		})
	}
}

// compareGolden writes v indented to path under -update, else compares.
func compareGolden(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	raw = append(raw, '\n')
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update ./internal/wire to create it)", err)
	}
	if !bytes.Equal(raw, want) {
		t.Fatalf("differs from %s (inspect, then go test -update ./internal/wire)\ngot:\n%s", path, firstLines(strings.TrimSpace(string(raw)), 40))
	}
}

// TestGoldenBodiesPassContract: every chain golden, rendered as the
// pipeline renders it (its final turn judged), is a body the contract's
// body rules accept, with the job's system prompt and tools; or the
// renderer refuses it, and then the contract refuses its plain render for
// its final turn too.
func TestGoldenBodiesPassContract(t *testing.T) {
	for name := range goldenTargets {
		tr, p := goldenInput(t, name)
		f := FormatFor(p)
		opts := transcript.Options{Render: RenderRequest}
		final, refusal := FinalTurn(p, tr.Messages, opts)
		req := testRequest
		req.Final = final
		res, err := contract.CheckBody(f, Render(nil, f, p, tr.Messages, req), p.Model)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case refusal == nil && !res.OK():
			t.Errorf("%s: %s", name, res.Summary())
		case refusal != nil && (res.Counts[contract.RuleFinalTurn] != 1 || res.Total != 1):
			t.Errorf("%s: refused (%v) but the contract says %s", name, refusal, res.Summary())
		}
	}
}

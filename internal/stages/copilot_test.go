package stages

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// copilotID is an opaque item id as GitHub Copilot's Responses endpoint
// gives it (openclaw/openclaw#72602): base64 of about 300 bytes, 408
// characters, '+' and '/' included.
func copilotID(seed string) string {
	var raw []byte
	for h := sha256.Sum256([]byte(seed)); len(raw) < 306; h = sha256.Sum256(h[:]) {
		raw = append(raw, h[:]...)
	}
	return base64.StdEncoding.EncodeToString(raw[:306])
}

// TestCopilotReasoningKept: a GitHub Copilot GPT-5 turn as pi-ai stores it
// (the call id "call_<24>|<Copilot item id>", the reasoning item with a
// Copilot id in thinkingSignature), replayed to Copilot, keeps its
// reasoning item and both ids in the body; replayed to OpenAI, neither
// (OpenAI cannot verify Copilot's encrypted reasoning). On 0988e1e the
// Copilot body lost the reasoning (reasoningItem took rs_ ids only) and
// the function_call's item id (ResponsesIDs took fc_ ids only).
func TestCopilotReasoningKept(t *testing.T) {
	callID, itemID, rsID := "call_MHxqDoDDmNRfc1WyS2GCa7pf", copilotID("fc"), copilotID("rs")
	sig := `{\"id\":\"` + rsID + `\",\"type\":\"reasoning\",\"encrypted_content\":\"` + copilotID("enc") + `\",\"summary\":[]}`
	src := `"api":"openai-responses","provider":"github-copilot","model":"gpt-5.4"`
	history := `[{"role":"user","content":[{"type":"text","text":"list the repository"}],"timestamp":1764620000000},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"","thinkingSignature":"` + sig + `"},` +
		`{"type":"toolCall","id":"` + callID + `|` + itemID + `","name":"bash","arguments":{"command":"ls"}}],` + src + `,"stopReason":"toolUse","timestamp":1764620001000},` +
		`{"role":"toolResult","toolCallId":"` + callID + `|` + itemID + `","toolName":"bash","content":[{"type":"text","text":"README.md"}],"isError":false,"timestamp":1764620002000},` +
		`{"role":"assistant","content":[{"type":"text","text":"A README."}],` + src + `,"stopReason":"stop","timestamp":1764620003000},` +
		`{"role":"user","content":[{"type":"text","text":"and now?"}],"timestamp":1764620004000}]`
	for _, c := range []struct {
		tg   transcript.Target
		kept bool
	}{
		{transcript.Target{Provider: "github-copilot", API: "openai-responses", Model: "gpt-5.4"}, true},
		{transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5.4"}, false},
	} {
		t.Run(c.tg.Provider, func(t *testing.T) {
			tr, env, rej := runChain(t, c.tg, []byte(history), nil, stage.Settings{})
			if rej != nil {
				t.Fatalf("refused: %v (report %v)", rej, env.Report.Stages)
			}
			p := policy.Resolve(c.tg)
			body := string(wire.Render(nil, wire.FormatFor(p), p, tr.Messages, wire.Request{}))
			want := map[string]string{
				"the reasoning item":       `{"type":"reasoning","id":"` + rsID + `"`,
				"the function call's item": `"call_id":"` + callID + `","id":"` + itemID + `"`,
			}
			for what, s := range want {
				if strings.Contains(body, s) != c.kept {
					t.Errorf("%s in the body: %v, want %v\n%s", what, !c.kept, c.kept, body)
				}
			}
			if !strings.Contains(body, `"call_id":"`+callID+`"`) {
				t.Errorf("the call_id is not sent as it is\n%s", body)
			}
		})
	}
}

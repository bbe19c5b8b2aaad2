package stages

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/wire"
)

// instructionsOnlyGemini is a Gemini generateContent body whose user
// instructions are all in systemInstruction: its contents are the model's
// call and the function response (Gemini clients leave the call id out),
// so it parses to an assistant turn and a tool result, no user turn.
const instructionsOnlyGemini = `{"systemInstruction":{"parts":[{"text":"You are the heartbeat agent. Read HEARTBEAT.md and act on it."}]},` +
	`"contents":[{"role":"model","parts":[{"functionCall":{"name":"read","args":{"path":"HEARTBEAT.md"}}}]},` +
	`{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"output":"- check the nightly build"}}}]}],` +
	`"tools":[{"functionDeclarations":[{"name":"read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]}]}`

// TestInstructionsOnlyHistory is issue 29's defect 6: a history with no
// user turn was ready with a "(session bootstrap)" turn for Anthropic,
// Bedrock and Gemini, and a dead letter empty_history for Chat, Responses
// and Mistral. Now every target gives the same answer: ready, the bootstrap
// turn first, the call and its result kept.
func TestInstructionsOnlyHistory(t *testing.T) {
	src := formatTargets[wire.GeminiContents]
	for f, tg := range formatTargets {
		t.Run(string(f), func(t *testing.T) {
			body, report, rej := sanitizeBody(t, wire.GeminiContents, []byte(instructionsOnlyGemini), src, tg)
			if rej != nil {
				t.Fatalf("dead letter %s: %s", rej.Code, rej.Msg)
			}
			s := string(body)
			boot := strings.Index(s, "(session bootstrap)")
			call := strings.Index(s, "HEARTBEAT.md")
			if boot < 0 || call < 0 || boot > strings.Index(s, `"read"`) {
				t.Errorf("want the bootstrap turn before the call: %s", s)
			}
			if !strings.Contains(s, "check the nightly build") {
				t.Errorf("the result is lost: %s", s)
			}
			if !strings.Contains(s, "You are the heartbeat agent.") {
				t.Errorf("the instructions are lost: %s", s)
			}
			if n := report.Stages.Get("provider_turns", "bootstrap") + report.Stages.Get("google_bootstrap", "prepended"); n != 1 {
				t.Errorf("bootstrap counted %d times, want 1: %v", n, report.Stages)
			}
		})
	}
}

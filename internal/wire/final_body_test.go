package wire

import (
	"encoding/json"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestFinalTurnJudgesTheBody: the final-turn rule judges the turn the body
// ends with. A last assistant message of which the target's body writes
// nothing (a Magistral turn of unsigned thinking only, which no target
// sends) leaves the body ending with the user's turn, which every model
// takes; an assistant turn the body does write is judged as before.
// Reproducer: on 0988e1e Mistral refused the first history ("ends with an
// assistant turn") although its body ends with the user's message.
func TestFinalTurnJudgesTheBody(t *testing.T) {
	user := `{"role":"user","content":[{"type":"text","text":"Summarise CHANGELOG.md in one line."}],"timestamp":1776001000000}`
	thinkingOnly := `{"role":"assistant","content":[{"type":"thinking","thinking":"The user wants a one-line summary; I should read the file first."}],` +
		`"api":"mistral-conversations","provider":"mistral","model":"magistral-medium-latest","stopReason":"stop","timestamp":1776001001000}`
	answer := `{"role":"assistant","content":[{"type":"text","text":"It lists the 1.4 fixes."}],` +
		`"api":"mistral-conversations","provider":"mistral","model":"magistral-medium-latest","stopReason":"stop","timestamp":1776001002000}`
	cases := []struct {
		name, target, history string
		refused               bool
		continues             bool // options.continue: the body ends with the assistant marked prefix
	}{
		{"mistral, continue: the prefix is the last turn sent", "mistral/mistral-conversations/mistral-large-latest", history(user, answer, thinkingOnly), false, true},
		{"mistral: nothing of the last assistant is sent", "mistral/mistral-conversations/mistral-large-latest", history(user, thinkingOnly), false, false},
		{"mistral: the last assistant's text is sent", "mistral/mistral-conversations/mistral-large-latest", history(user, answer), true, false},
		{"mistral: an unsent turn after a sent one", "mistral/mistral-conversations/mistral-large-latest", history(user, answer, thinkingOnly), true, false},
		{"claude 4.6 refuses prefill: unsigned thinking is not sent", "anthropic/anthropic-messages/claude-opus-4-6", history(user, thinkingOnly), false, false},
		{"claude 4.6 refuses prefill: text is sent", "anthropic/anthropic-messages/claude-opus-4-6", history(user, answer), true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg, err := policy.ParseTarget(c.target)
			if err != nil {
				t.Fatal(err)
			}
			p := policy.Resolve(transcript.Target(tg))
			msgs := mustMessages(t, c.history)
			final, err := FinalTurn(p, msgs, transcript.Options{Render: RenderRequest, Continue: c.continues})
			if (err != nil) != c.refused {
				t.Fatalf("refused: %v, want %v", err, c.refused)
			}
			if err != nil {
				return
			}
			var body struct {
				Messages []struct {
					Role   string `json:"role"`
					Prefix bool   `json:"prefix"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(Render(nil, FormatFor(p), p, msgs, Request{Final: final}), &body); err != nil {
				t.Fatal(err)
			}
			n := len(body.Messages)
			switch {
			case c.continues && (n == 0 || body.Messages[n-1].Role != "assistant" || !body.Messages[n-1].Prefix):
				t.Errorf("the body does not end with the assistant's turn marked prefix: %+v", body.Messages)
			case !c.continues && (n == 0 || body.Messages[n-1].Role != "user"):
				t.Errorf("the body does not end with the user's turn: %+v", body.Messages)
			}
		})
	}
}

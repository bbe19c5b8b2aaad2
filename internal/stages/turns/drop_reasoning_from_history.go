package turns

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// DropReasoningFromHistory is spec §3.8.4 (newer builds; the policy flag of
// OpenAI-compatible chat completions): every assistant loses its thinking
// blocks except the assistant of the current tool turn (it has a tool call,
// comes after the latest user message with no other assistant in between,
// and a tool result follows it). A content this empties becomes the exact
// text "[assistant reasoning omitted]". The opt-outs the spec mentions
// (custom models marked reasoning:true, provider exceptions) are not in the
// job contract, so the policy flag alone decides.
func DropReasoningFromHistory() stage.Stage {
	const name = "drop_reasoning_from_history"
	return stage.Stage{Name: name, On: dropReasoningOn, Needs: transcript.FactThinking, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !dropReasoningOn(env) {
			return nil
		}
		keep := currentTurnToolCall(t.Messages)
		n := 0
		for i, m := range t.Messages {
			if m.Role() == transcript.RoleAssistant && i != keep {
				n += dropThinking(m, everyBlock)
			}
		}
		env.Report.Add(name, "dropped", n)
		return nil
	}}
}

// dropReasoningOn is the guard of §3.8.4: the policy drops reasoning from
// history.
func dropReasoningOn(env *stage.Env) bool { return env.Policy.DropReasoningFromHistory }

package turns

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// GeminiTurns is spec §3.12.1 (validateGeminiTurns), in the turn-validation
// pass after sanitisation: consecutive assistant messages are merged into the
// first of them. Contents are concatenated; the first message keeps its
// members, except usage, stopReason and errorMessage, which a later message
// that has them overwrites. Entries without a role pass through and do not
// break a run. Choice (the spec's port note): a non-blank string content
// contributes a text block instead of nothing.
func GeminiTurns() stage.Stage {
	const name = "gemini_turns"
	return stage.Stage{Name: name, On: geminiTurnsOn, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !geminiTurnsOn(env) {
			return nil
		}
		var n, foreign int
		t.Messages, n, foreign = mergeAssistants(t.Messages, env.Policy)
		env.Report.Add(name, "merged", n)
		env.Report.Add(name, "foreign_thinking_dropped", foreign)
		return nil
	}}
}

// geminiTurnsOn is the guard of §3.12.1: the policy validates Gemini turns.
func geminiTurnsOn(env *stage.Env) bool { return env.Policy.ValidateGeminiTurns }

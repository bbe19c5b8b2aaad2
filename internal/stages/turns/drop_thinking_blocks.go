package turns

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// DropThinkingBlocks is spec §3.8.1 (policy flag: Copilot Claude, Claude
// before 4.5): every assistant with array content except the latest such
// one loses its thinking and redacted_thinking blocks; a content this
// empties becomes the exact text "[assistant reasoning omitted]" (the newer
// build's form). The latest assistant is kept verbatim, even thinking-only.
func DropThinkingBlocks() stage.Stage {
	const name = "drop_thinking_blocks"
	return stage.Stage{Name: name, On: dropThinkingOn, Needs: transcript.FactThinking, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !dropThinkingOn(env) {
			return nil
		}
		latest := latestArrayAssistant(t.Messages)
		n := 0
		for i, m := range t.Messages {
			if m.Role() == transcript.RoleAssistant && i != latest {
				n += dropThinking(m, everyBlock)
			}
		}
		env.Report.Add(name, "dropped", n)
		return nil
	}}
}

// dropThinkingOn is the guard of §3.8.1: the policy drops thinking blocks.
func dropThinkingOn(env *stage.Env) bool { return env.Policy.DropThinkingBlocks }

package turns

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// ReplayInvalidSignatures is spec §3.4.1: on a recovery retry (the job's
// replay_invalid option) and unless the policy drops thinking blocks, every
// thinking block of every assistant loses its signature members
// (thinkingSignature, signature, thought_signature, and data on
// redacted_thinking); the thinking text stays. There is no latest-turn
// exemption, and no provider guard: the retry asked for it.
func ReplayInvalidSignatures() stage.Stage {
	const name = "replay_invalid_signatures"
	return stage.Stage{Name: name, On: replayInvalidOn, Needs: transcript.FactThinking, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !replayInvalidOn(env) {
			return nil
		}
		n := 0
		for _, m := range t.Messages {
			if m.Role() == transcript.RoleAssistant {
				n += stripMessageSignatures(m)
			}
		}
		env.Report.Add(name, "stripped", n)
		return nil
	}}
}

// replayInvalidOn is the guard of §3.4.1: the job asks to replay invalid
// signatures, and the policy keeps thinking.
func replayInvalidOn(env *stage.Env) bool {
	return env.Settings.Request.ReplayInvalid && !env.Policy.DropThinkingBlocks
}

package turns

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// InvalidSignatures is spec §3.4.3, for signed-thinking providers and
// policies that preserve signatures: every assistant but the preserved
// latest one drops each thinking block without a replayable signature (a
// non-blank string signature, thinkingSignature or thought_signature; data
// also counts on redacted_thinking). A content this empties becomes the
// exact text "[assistant reasoning omitted]".
//
// When the target verifies signatures (policy.AllowProviderOwnedThinkingReplay),
// a turn whose thinking another provider wrote (policy.VerifiesTurn: OpenAI
// reasoning, Gemini thoughts) loses every thinking block, the latest turn's
// too: its signatures would be refused, whatever they hold (issue 20).
//
// The latest assistant with array content is preserved when the job's
// preserve_latest_assistant_thinking option says so, or, without the
// option, when it is the last message (entries without a role, which no
// provider receives, do not count) or the assistant of the current tool
// turn (it has a tool call, a tool result follows it, no user message comes
// after it and no other assistant sits between it and the preceding user).
func InvalidSignatures() stage.Stage {
	const name = "invalid_signatures"
	return stage.Stage{Name: name, On: signaturesOn, Needs: transcript.FactThinking, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !signaturesOn(env) {
			return nil
		}
		latest, preserve := preservedLatest(t.Messages, env)
		verifies := env.Policy.AllowProviderOwnedThinkingReplay()
		verifier := env.Policy.TurnVerifier()
		n, foreign := 0, 0
		for i, m := range t.Messages {
			if m.Role() != transcript.RoleAssistant {
				continue
			}
			if verifies && !verifier.Verifies(m) {
				foreign += dropThinking(m, everyBlock)
				continue
			}
			if preserve && i == latest {
				continue
			}
			n += dropThinking(m, unsigned)
		}
		env.Report.Add(name, "dropped", n)
		env.Report.Add(name, "foreign_dropped", foreign)
		if n+foreign == 0 {
			env.NoEdit() // nothing dropped: the proofs made before it stand
		}
		return nil
	}}
}

// InvalidSignaturesAgain is InvalidSignatures once more, after the rules
// that repair calls and results (§3.5 to §3.7, and the trims after them),
// so that one pass of the chain reaches its fixed point (issue 16). Step 6
// preserves the current tool turn's thinking, unsigned blocks included;
// when those rules then drop that turn's calls (an invalid name, say) and
// the results that followed them, the turn is no longer the current tool
// turn, and a second pass would drop the thinking the first kept. Choice,
// where the spec is silent: the turn is judged on the history as it will
// be sent, so its unsigned thinking goes in the first pass.
//
// Only the latest assistant with array content is judged again: step 6
// dropped the unsigned thinking of every other turn, and every thinking
// block of a turn another provider wrote, the latest's included, and the
// rules in between add no thinking block nor an assistant with array
// content. So a turn step 6 did not preserve holds nothing the again pass
// would drop, and the again pass costs one walk back from the end, not a
// second look at every turn's signatures (FuzzChain's idempotence holds it
// to a whole second pass). Unless it dropped the thinking of a turn with
// tool calls, which the id rule may have kept as a signed turn, it proves
// so (env.SignedTurnsKept) for toolcalls.ToolCallIDsAgain.
func InvalidSignaturesAgain() stage.Stage {
	const name = "invalid_signatures_again"
	return stage.Stage{Name: name, On: signaturesOn, Needs: transcript.FactThinking, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !signaturesOn(env) {
			return nil
		}
		n := 0
		latest, preserve := preservedLatest(t.Messages, env)
		if latest >= 0 && !preserve {
			n = dropThinking(t.Messages[latest], unsigned)
		}
		env.Report.Add(name, "dropped", n)
		if n == 0 {
			env.NoEdit() // as it mostly finds: the proofs made before it stand
		}
		if n == 0 || !hasToolCallBlock(t.Messages[latest]) {
			env.SignedTurnsKept = env.Prove(0) // the id rule's signed turns are still signed
		}
		return nil
	}}
}

// preservedLatest returns the index of the latest assistant with array
// content (-1 for none), and whether §3.4.3 preserves its thinking: as the
// job's option says, or else when it is the last message with a role or
// the current tool turn's assistant.
func preservedLatest(msgs []*transcript.Message, env *stage.Env) (latest int, preserve bool) {
	latest = latestArrayAssistant(msgs)
	if o := env.Settings.Request.PreserveLatestAssistantThinking; o != nil {
		return latest, *o
	}
	return latest, latest >= 0 && (latest == lastWithRole(msgs) || latest == currentTurnToolCall(msgs))
}

// unsigned reports whether thinking block b lacks a replayable signature.
func unsigned(b *transcript.Block) bool { return !hasReplayableSignature(b) }

// latestArrayAssistant returns the index of the last assistant whose content
// is an array, or -1.
func latestArrayAssistant(msgs []*transcript.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role() == transcript.RoleAssistant {
			if _, ok := msgs[i].Blocks(); ok {
				return i
			}
		}
	}
	return -1
}

// lastWithRole returns the index of the last message that has a role, or -1.
func lastWithRole(msgs []*transcript.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if hasRole(msgs[i]) {
			return i
		}
	}
	return -1
}

// signaturesOn is the guard of the signature rules (§3.4.2, §3.4.3): the
// target signs its thinking, or the policy preserves signatures.
func signaturesOn(env *stage.Env) bool {
	return env.Policy.SignedThinkingProvider() || env.Policy.PreserveSignatures
}

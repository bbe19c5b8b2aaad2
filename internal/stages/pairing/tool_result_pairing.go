package pairing

import (
	"context"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// pairingNeeds are what the pairing repair reads: tool calls and tool
// results.
const pairingNeeds = transcript.FactToolCall | transcript.FactToolResult

// syntheticResult is what the pairing repair may bring into a job: a
// synthetic tool result, with its details.
const syntheticResult = transcript.FactToolResult | transcript.FactDetails

// ToolResultPairingName is the report key and metric label of ToolResultPairing.
const ToolResultPairingName = "tool_result_pairing"

// ToolResultPairing is the tool-result pairing repair of spec §3.7 (§4 step
// 12): for every target outside the OpenAI Responses family, when the policy
// has RepairToolUseResultPairing, each assistant turn with tool calls is
// followed by exactly one result per call, in call order, and no result is
// left without its call.
//
// It implements the current, occurrence-based algorithm with the "drop"
// policy for failed turns: results are claimed per frame (FIFO per id), a
// duplicate is dropped unless it is a real result replacing a synthetic one,
// a result outside its call's frame moves back only to a single candidate,
// and a turn that stopped with error or aborted is removed with its results.
// Missing results get a synthetic error result whose text is
// Settings.MissingToolResultText, or DefaultMissingToolResultText when that
// is blank (a blank text block is rejected by Anthropic and Bedrock). Its
// timestamp is Settings.Request.NowMs when the job sent a clock, else the owning
// assistant's timestamp, else it has none.
//
// Choices: ids are matched trimmed, and a matched result is emitted as it
// was (its id is not rewritten: the provider projection trims ids). A call
// whose id is only white space can be answered only by an id-less result.
// A null entry inside a frame is dropped (spec); other non-object entries
// stay in their frame's remainder. Counts go to the report under the stage
// name: synthetic, moved, orphan, duplicate, synthetic_replaced,
// failed_turn, failed_turn_result, renamed, adopted, null_dropped.
func ToolResultPairing() stage.Stage {
	return stage.Stage{Name: ToolResultPairingName, On: pairingOn, Needs: pairingNeeds, Adds: syntheticResult, Apply: applyToolResultPairing}
}

// pairingOn is the guard of the tool-result pairing repair: the policy
// repairs pairing, and the target is not of the Responses family (whose
// own rules pair).
func pairingOn(env *stage.Env) bool {
	return !env.Policy.IsResponsesAPI() && env.Policy.RepairToolUseResultPairing
}

func applyToolResultPairing(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	if !pairingOn(env) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	text := env.Settings.MissingToolResultText
	if strings.TrimSpace(text) == "" {
		text = DefaultMissingToolResultText
	}
	runRepair(t, env, ToolResultPairingName, text)
	return nil
}

// runRepair runs the drop-policy repair over t with the given synthetic
// text and reports under name: split across env.Fanout when the history is
// large enough (repairChunked), with the same output and counts. A
// history that one read proves paired as it is (pairedAsIs) is left as
// it is, with nothing counted: the repair would give it back unchanged.
// The tool-call id proof may have read so already (stage.Env.ResultsPaired).
// When every result also carries its call's id as written, that is proved
// for the result-id alignment (stage.Env.ResultIDsExact).
func runRepair(t *transcript.Transcript, env *stage.Env, name, text string) {
	v, paired := env.FoundUnedited(env.ResultsPaired)
	exact := v == 1
	if !paired {
		paired, exact = pairedAsIs(t.Messages)
	}
	if paired {
		if exact {
			env.ResultIDsExact = env.Prove(0)
		}
		env.NoEdit()
		return
	}
	nowMs, hasNow := env.Settings.Request.Now()
	opts := repairOptions{text: text, failed: dropFailed, nowMs: nowMs, hasNow: hasNow}
	var out []*transcript.Message
	var c repairCounts
	if k := chunksFor(env, len(t.Messages)); k > 1 {
		out, c = repairChunked(t.Messages, opts, k, env.Fanout)
	} else {
		out, c = repair(t.Messages, opts)
	}
	t.Messages = out
	c.report(env.Report, name)
}

// chunksFor is how many chunks env.Fanout splits n messages into (1 when
// the job has no fanout).
func chunksFor(env *stage.Env, n int) int {
	if env.Fanout == nil {
		return 1
	}
	return env.Fanout.Chunks(n)
}

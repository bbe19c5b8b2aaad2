// Package stages is the hygiene pipeline as a list: Default returns every
// rule in the order of spec §4 (sanitizeSessionHistory, current build),
// followed by turn validation (§3.12), the per-request context transforms
// (pruning §3.18, stale media §3.19) and the provider-acceptance pass that
// goes beyond OpenClaw. Reading Default shows the whole pipeline. Each rule
// guards itself on the job's policy, so the list never changes per job.
// Below the list, the runner (stage.Run, the pipeline's rule steps) skips
// a rule that has nothing to do: each rule's constructor declares the
// facts it reads (stage.Stage.Needs, transcript.Facts) and, for a rule
// with a plain policy guard, that guard (stage.Stage.On); a rule without a
// declaration (the checks that must look: the turn shape, the contract,
// the sizes) always runs.
//
// The rules live in four packages, one file per rule:
//   - turns: provenance marker, assistant replay, blank blocks, thinking
//     signatures and reasoning removal, usage, model snapshot, Google
//     bootstrap, Gemini and Anthropic turn validation, provider turn shape;
//   - toolcalls: tool-call input validation, id sanitisation, details strip;
//   - pairing: tool-result pairing and the OpenAI Responses family rules;
//   - media: images (libvips), context pruning, stale media cleanup,
//     documents and images by reference the target cannot carry, the
//     request-size cap, the context-window fit;
//   - sendable: nothing left to send, and the contract check.
//
// May import: internal/images, internal/stages/media,
// internal/stages/pairing, internal/stages/sendable, internal/stages/stage,
// internal/stages/toolcalls, internal/stages/turns.
package stages

import (
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/stages/media"
	"github.com/hygiene-dev/hygiene/internal/stages/pairing"
	"github.com/hygiene-dev/hygiene/internal/stages/sendable"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/toolcalls"
	"github.com/hygiene-dev/hygiene/internal/stages/turns"
)

// Default returns the rule chain. Image work goes to imgs, whose pool is
// separate from the job pool.
func Default(imgs *images.Processor) []stage.Stage {
	return []stage.Stage{
		// beyond OpenClaw, before any rule reads text: invalid UTF-8 and lone
		// surrogates become U+FFFD (a signed thinking block that holds one is
		// dropped as §3.4.3 drops an invalid signature)
		turns.TextRepair(),
		// beyond OpenClaw: Anthropic server-tool blocks paired in their turn,
		// or text for every other target (before §3.2 judges emptiness)
		turns.ServerTools(),
		// §4 step 0, the prior model snapshot, is read before the chain:
		// env.ModelChanged (turns.ModelChanged)
		turns.InterSessionMarker(), // step 1, §3.1
		turns.AssistantReplay(),    // step 2, §3.2 (and §3.16 Bedrock empty turns)
		// step 3, §3.3: the image pass (thought signatures §3.9, blank
		// blocks, and tool-call ids where the policy allows here); the
		// images themselves are resized last, see below
		turns.ThoughtSignatures(),
		turns.BlankBlocks(),
		toolcalls.ToolCallIDsInImagePass(),
		turns.ReplayInvalidSignatures(),   // step 4, §3.4.1
		turns.CompactionStaleSignatures(), // step 5, §3.4.2
		turns.InvalidSignatures(),         // step 6, §3.4.3
		turns.DropReasoningFromHistory(),  // step 7, §3.8.4
		turns.DropThinkingBlocks(),        // step 8, §3.8.1
		toolcalls.ToolCallInputs(),        // step 9, §3.5
		// §3.2 again for the messages §3.5 and the rules before it changed:
		// one pass reaches the fixed point (issue 16)
		turns.AssistantReplayAgain(),
		// step 10, Responses family: pairing (aborted), orphan reasoning,
		// id normalisation, fc_ downgrade
		pairing.ResponsesPairing(),
		pairing.OrphanReasoning(),
		pairing.ResponsesIDs(),
		pairing.FunctionCallDowngrade(),
		toolcalls.ToolCallIDs(),        // step 11, §3.6
		pairing.ToolResultPairing(),    // step 12, §3.7
		toolcalls.StripDetails(),       // step 13, §3.10
		turns.Usage(),                  // step 14, §3.14
		pairing.ResponsesInvariant(),   // step 16, §3.15 (pairing again, then the check)
		turns.TrailingFailures(),       // §3.2's trailing trim again, after pairing moved results (issue 16)
		pairing.AlignResultIDs(),       // beyond OpenClaw: a result paired after trimming gets its call's exact id
		turns.InvalidSignaturesAgain(), // §3.4.3 again, on the repaired calls and results (issue 16)
		toolcalls.ToolCallIDsAgain(),   // §3.6 again, for the signed turns that lost their thinking (issue 16)
		turns.ModelSnapshot(),          // step 17, §3.13
		turns.GoogleBootstrap(),        // steps 15 and 18, §3.11
		turns.GeminiTurns(),            // §3.12.1
		turns.AnthropicTurns(),         // §3.12.2
		media.Pruning(),                // §3.18, per request, behind the TTL gate
		media.StaleMedia(),             // §3.19
		// beyond OpenClaw: tools_offered false, so every call and result becomes
		// text (after pairing and the context transforms, before images and
		// the turn shape)
		toolcalls.ToolsAsText(),
		toolcalls.ToolNames(), // beyond OpenClaw: tool names the target refuses renamed, history and tools alike
		media.Documents(),     // beyond OpenClaw: documents and images by URL or file id the target cannot carry become named placeholders
		// §3.3's image part, moved from step 3 to after the per-request
		// transforms: no rule in between reads image bytes (pruning counts
		// every image as 8,000 characters whatever its size), so the output
		// is the same, and images that pruning or stale-media cleanup
		// replaces are never decoded or resized: in a long session that is
		// most of them.
		media.Images(imgs),
		turns.ProviderTurns(), // beyond OpenClaw: the target accepts the shape
		// beyond OpenClaw: sendable at all. The request-size cap (oldest
		// images and documents become placeholders first), the context
		// window's fit, then nothing left to send, then the check of the
		// target's contract, last.
		media.RequestSize(),
		media.ContextFit(), // beyond OpenClaw: the target model's context window, with the output reserved (issue 30)
		sendable.EmptyHistory(),
		sendable.Contract(),
	}
}

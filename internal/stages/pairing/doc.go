// Package pairing holds the hygiene rules that pair tool calls with their
// results, and the OpenAI Responses rules that depend on that pairing.
//
// Rules (one file each), with their spec sections and places in spec §4:
//
//   - ToolResultPairing ("tool_result_pairing", §3.7, step 12): the
//     occurrence-based pairing repair, drop policy, for every target outside
//     the Responses family when RepairToolUseResultPairing is set.
//   - ResponsesPairing ("responses_pairing", §3.7, step 10): the same repair
//     with the exact synthetic text "aborted", Responses family only.
//   - OrphanReasoning ("orphan_reasoning", §3.8.2, step 10): drops OpenAI
//     reasoning that no output item follows; all of it when the model
//     changed (env.ModelChanged).
//   - ResponsesIDs ("responses_ids", §3.8.3 note, step 10): makes every
//     call_id at most 64 characters of [A-Za-z0-9_-] and unique, and every
//     kept item id a unique fc_ id, rewriting calls and results together.
//   - FunctionCallDowngrade ("fc_downgrade", §3.8.3, step 10): call_X|fc_Y
//     becomes call_X when no replayable reasoning precedes the call.
//   - ResponsesInvariant ("responses_invariant", §3.15, step 16): repairs
//     again with "aborted", then checks that every call is answered at once;
//     a violation is a *ReplayError (a bug, since the repair prevents it).
//
// What every target gets from these rules: each assistant with tool calls
// is followed at once by exactly one result per call, in call order; no
// result is left without its call; a real result is never dropped in favour
// of a synthetic one (a late real result replaces a synthetic, a synthetic
// never displaces a real one); and a call removed by an earlier rule gets no
// synthetic result, because it is no longer in the transcript and its
// result becomes an orphan. The one real result the spec does drop is a
// displaced one whose id names several unanswered calls (vector V6): it
// cannot be told which call it answers, so each of them gets a synthetic.
//
// Choices the spec leaves open, and where this package goes beyond
// OpenClaw (each also in the rule's doc comment):
//
//   - The synthetic text for non-Responses targets is the configured
//     Settings.MissingToolResultText, or DefaultMissingToolResultText (our
//     own wording of the current "unknown outcome" text, whose literal the
//     spec could not retrieve) when that is blank. Synthetic results carry
//     details.openclawSyntheticMissingToolResult so that a late real result
//     can still replace them; a later stage strips details before sending.
//   - Ids are matched trimmed; a matched result is emitted as it was. A call
//     whose id is only white space is answered only by an id-less result.
//   - Null entries inside a frame are dropped (spec); other non-object
//     entries stay in their frame's remainder.
//   - The fc_ downgrade and the id normalisation rewrite every id member of
//     a result (toolCallId, toolUseId and the legacy aliases), not only the
//     first two.
//   - ResponsesIDs goes beyond OpenClaw in making call ids unique across the
//     whole request: strict Responses endpoints reject a call_id used twice.
//   - The invariant error's index is that of the assistant whose call is
//     unanswered, or of the result that answers nothing.
//
// A clean history costs the repair one read, or none: before it records
// anything, pairedAsIs proves, allocating nothing, that the repair would
// give the history back as it is (transcript.PairedCheck: each frame
// answered at once, in call order, by results it keeps as written), unless
// the tool-call id proof read that already in its own read of every call
// and result (stage.Env.ResultsPaired) and no rule edited the history
// since. The repair then does nothing; where every result also carries its
// call's id as written, AlignResultIDs takes that proof
// (stage.Env.ResultIDsExact) instead of reading the history again.
//
// Every rule is a pure, idempotent function of the transcript and env,
// linear in the number of messages and blocks (ids are looked up in maps),
// and keeps untouched messages as the same pointers and bytes.
//
// May import: internal/contract, internal/stages/stage, internal/transcript.
package pairing

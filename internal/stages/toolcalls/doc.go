// Package toolcalls holds the hygiene rules that look at tool calls and
// tool-result ids (spec §3.5, §3.6, §3.10):
//
//   - ToolCallInputs ("tool_call_inputs", §3.5, §4 step 9): drops malformed
//     calls (no input/arguments, no id in any id member, an invalid or
//     disallowed name, a partialJson scratch buffer beside arguments that
//     are not complete; a finished call with complete arguments, or whose
//     tool ran, its result in the history, only loses the buffer: beyond
//     OpenClaw, which drops the latter), trims names,
//     removes assistants emptied by drops and non-object entries, and keeps
//     immutable signed-thinking turns byte-identical or drops them whole.
//   - ToolCallIDs ("tool_call_ids", §3.6, §4 step 11),
//     ToolCallIDsInImagePass ("tool_call_ids_early", §4 step 3) and
//     ToolCallIDsAgain ("tool_call_ids_again", after the again pass of
//     §3.4.3, when signed turns keep their raw ids): strict and
//     strict9 id sanitising with the occurrence-aware resolver, native
//     toolu_ and Kimi ids, the OpenAI duplicate style, the newer result-id
//     rule and preserved replay-safe signed turns; when ids are not
//     sanitised, only the ids the target rejects are rewritten.
//   - StripDetails ("strip_details", §3.10, §4 step 13): removes "details"
//     from tool results.
//
// Choices the spec leaves open (each rule's doc comment has the details):
//
//   - An empty allowed_tool_names list means no list (a job cannot tell an
//     empty list from an absent one).
//   - A blank id counts as missing for input validation.
//   - A signed turn must carry its ids in "id" to be replayed as it is; the
//     displacement check of §3.5 looks at any displaced result of the span.
//   - Every id ToolCallIDs emits is accepted by the target (contract.IDLimits),
//     including ids OpenClaw keeps as they are; a signed turn with an id the
//     target rejects is not replay-safe. For OpenAI Responses the limit is
//     read as the call_id's: only the part before "|" of a "call_id|item_id"
//     pair is checked and, when needed, rewritten.
//   - Ids are matched trimmed, as pairing repair does, and a result always
//     receives the id of the call pairing would pair it with by raw id, so
//     id rewriting never re-pairs a result (OpenClaw's plain FIFO can). An
//     ambiguous displaced result stays unpaired.
//   - An orphan result never takes an id a call of the history carries (the
//     call keeps it). An orphan whose id is already valid for the mode keeps
//     it, and a taken native Kimi id continues as an ordinary alphanumeric
//     strict id, so the rule is idempotent. No clock is read (hash
//     fallbacks replace OpenClaw's timestamp ids).
//   - ToolCallInputs runs again over its own output when removing an
//     assistant lengthened the span of a kept signed turn (rare), so its
//     displacement check gives the same answer on a second run.
//   - The OpenAI duplicate style re-hashes repeats of call_ ids only; other
//     ids follow the strict rules.
//   - On a large history (the job's Fanout, as every chunked rule) the id
//     rules collect and rewrite per chunk of messages in parallel and
//     resolve the ids once, in history order, between the two: the output
//     and the report are the sequential run's (sanitizeIDs, fitLimits).
//   - A history whose ids the sanitising pass would all keep is first
//     proved so in one read of its ids (keepsEveryID), and the pass then
//     collects nothing: a clean history does not pay for the resolver. The
//     same read tells what the rules after it that read the same calls and
//     results would do (sameRead): whether the input validation keeps every
//     call as written (inputsCheck, stage.Env.InputsKept), which
//     ToolCallInputs takes, and whether the pairing repair keeps the
//     history as it is (transcript.PairedCheck, stage.Env.ResultsPaired),
//     which the pairing rules take, while no rule edits the history.
//
// None of these rules creates a tool result. A call dropped by
// ToolCallInputs leaves its results behind as orphans, which pairing repair
// (a later rule) removes.
//
// May import: internal/contract, internal/policy, internal/stages/stage,
// internal/transcript, internal/transcript/jsontape.
package toolcalls

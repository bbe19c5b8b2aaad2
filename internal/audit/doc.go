// Package audit answers, for an operator before a provider switch, what the
// worker would do to archived sessions (and jobs) for each target: whether
// each one comes out ready or as a dead letter (with its code), how many
// tool calls and results go in and come out, every call or result the
// repair dropped with the reason class of the drop, and whether the
// rendered request body (job option render: request) passes the target's
// contract. It is `worker audit`.
//
// It reads what `worker replay` reads (replay.Discover: directories walked
// for .jsonl and .jsonl.zst, named files taken whatever their name), and
// also jobs: a named file ending in .json or .json.zst is read as a job
// (its own target, or each --target instead). Each input is run through the
// Processor the worker runs, with render: request; a history that does not
// end with a user turn (most real sessions end with the assistant's answer)
// is given a placeholder
// user prompt as options.next (nextPrompt), the turn a runner sends next,
// since a request body must not end with the assistant's turn on Claude 4.6
// and later or Mistral. A session file names no
// tools, so a session is given the tools its calls name (valid names, the
// permissive schema), as the runner after a switch would offer its tools:
// without them a Bedrock Converse body carries the tool history as text.
// A job keeps its own tools. A panic while a file is audited is that
// file's outcome internal_error; the other files are still audited.
//
// # Drop accounting
//
// The audit does not read what the rules report: it compares the input
// transcript with the sanitized output, so it stays right whatever a rule
// does inside. A tool call is a block of any tool-call type (spec §3.5) of
// an assistant message; a tool result is a toolResult (or legacy tool)
// message. A result answers the nearest call before it with its id as
// written, else its trimmed id. Calls are matched across the repair as
// match documents: by trimmed name and canonical arguments (ids may be
// rewritten), preferring the same id, then a well-formed call, then the
// earliest; then by id; then by name in order. A result is matched through
// its call, then by toolName and content. An input call or result left
// unmatched is a Drop, classified from the input alone:
//
//	tools_as_text         the request offers no tools (tools_offered: false, or a
//	                      Bedrock body without tools), so the history goes as text
//	errored_turn          the call's turn has stopReason error or aborted
//	missing_id            the call has no non-empty id
//	incomplete_arguments  neither input nor arguments is a JSON object, or a
//	                      partialJson is left that is not a whole object and
//	                      no result answers the call
//	invalid_name          the trimmed name fails spec §3.5 (^[A-Za-z0-9_:.-]+$,
//	                      64 at most), the target's contract, or allowed_tool_names
//	duplicate_id_in_turn  an earlier call of the same turn has the same id
//	signed_turn           the turn's thinking is signed by whom the target gets it
//	                      from unchanged (its own provider and api, where the policy
//	                      replays provider-owned thinking; Anthropic's signatures
//	                      count on Anthropic, Bedrock and Vertex alike), and another
//	                      call of it is malformed or reuses an earlier turn's id:
//	                      spec §3.5 drops such a turn whole
//	no_call_on_branch     a result whose id matches no call before it
//	duplicate_result      a result of a call that kept another result
//	valid_call_dropped    anything else: a well-formed call in a turn that did
//	                      not fail, or a result of one
//
// A result of a call of another class takes that class. valid_call_dropped
// is what `--fail-on-drop` fails on. A call reused across turns with the same
// id (Gemini's name_n ids) is well formed. When two identical calls (name and
// arguments) exist and one is dropped, the drop is put on the one with a
// reason class when there is one.
//
// # Parts by kind
//
// Besides calls and results, a Session counts the parts of the input that
// did not reach the target as they were, by kind, from the chain's report
// (partsOf): dropped, when the message model has no place for them (a
// request job's parse: cache_control, citations, thought parts, reasoning
// items, server tools, audio, ... as the parse_request report names them),
// or replaced, by a text that names them (a document, an image by URL or a
// file id the target has no place for or that is over its limits; an image
// the image rules omitted or made stale). The table lists them under the
// session, and the totals sum them.
//
// # The request check
//
// The body the Processor rendered is read back: its tool calls and results
// as the wire carries them (Anthropic tool_use / tool_result, Bedrock
// toolUse / toolResult, Chat and Mistral tool_calls / tool messages,
// Responses function_call / function_call_output, Gemini functionCall /
// functionResponse). Each call id as sent (Responses: call_id, not the
// stored call|item form) and each name must pass the target's contract
// limits; with the contract's tool pairing every call id must have a result
// and every result a call; the body must fit the contract's request size;
// and it must carry as many calls and results as the sanitized messages
// (except with tools_as_text). Turn order is the contract stage's, which
// the worker runs before rendering: a violation there is the dead letter
// unsendable.
//
// # JSON (--json)
//
//	{
//	  "sessions": [{
//	    "path": "sessions/a.jsonl", "kind": "session",          // or "job"
//	    "target": "anthropic/anthropic-messages/claude-opus-4-6",
//	    "outcome": "ready",      // or a dead-letter code (unreadable, invalid_target, internal_error, ...)
//	    "stage": "contract",     // the refusing stage, when not ready
//	    "reason": "...",         // the dead letter's sentence, when not ready
//	    "calls":   {"in": 12, "out": 11, "added": 0},
//	    "results": {"in": 12, "out": 11, "added": 0},   // added: synthesised results
//	    "drops": [{"kind": "call", "class": "errored_turn", "message": 7, "block": 2,
//	               "id": "toolu_01...", "name": "read", "reason": "..."}],  // block -1 for a result
//	    "valid_drops": 0,
//	    "parts": {"image_url": {"dropped": 0, "replaced": 1},         // omitted when none
//	              "cache_control": {"dropped": 1, "replaced": 0}},
//	    "request": {"format": "anthropic-messages", "bytes": 48213, "calls": 11,
//	                "results": 11, "ok": true, "violations": []}           // null when not ready
//	  }],
//	  "totals": {"sessions": 1, "ready": 1, "outcomes": {"ready": 1},
//	             "calls": {...}, "results": {...}, "drops_by_class": {"errored_turn": 1},
//	             "valid_drops": 0, "request_failures": 0,
//	             "parts_by_kind": {"image_url": {"dropped": 0, "replaced": 1}}}
//	}
//
// May import: internal/contract, internal/deadletter, internal/pipeline,
// internal/policy, internal/replay, internal/settings,
// internal/stages/stage, internal/stages/toolcalls, internal/transcript,
// internal/wire.
package audit

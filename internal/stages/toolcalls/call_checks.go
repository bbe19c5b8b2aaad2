package toolcalls

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// callIDFields are the members a tool call may carry its id in. The newer
// build accepts any of them for input validation (spec §3.5); id rewriting
// and pairing read only "id".
var callIDFields = []string{"id", "call_id", "toolCallId", "toolUseId", "tool_call_id", "tool_use_id"}

// hasInput reports whether a call carries its payload: "input" or "arguments"
// present and not null ({} counts as present).
func hasInput(b *transcript.Block) bool {
	return !b.IsNull("input") || !b.IsNull("arguments")
}

// hasAnyCallID reports whether one of callIDFields is a non-blank string. A
// blank id is treated as missing: no provider accepts it, and pairing ignores it.
func hasAnyCallID(b *transcript.Block) bool {
	for _, k := range callIDFields {
		if s, ok := b.String(k); ok && transcript.TrimID(s) != "" {
			return true
		}
	}
	return false
}

// trimmedID returns a call's "id" trimmed ("" when absent or not a string).
func trimmedID(b *transcript.Block) string {
	s, _ := b.String("id")
	return transcript.TrimID(s)
}

// callName returns the raw name and whether it is a string.
func callName(b *transcript.Block) (string, bool) {
	return b.String("name")
}

// hasPartialJSON reports whether the call still holds a streaming scratch
// buffer (a string "partialJson").
func hasPartialJSON(b *transcript.Block) bool {
	_, ok := b.String("partialJson")
	return ok
}

// completeArguments reports whether a tool call's arguments are complete,
// so that a partialJson left beside them is informational: pi-ai keeps the
// streaming buffer on every finished OpenAI Responses call, whatever its id
// later became (issue 20). Complete means all of:
//   - "arguments" or "input" is a JSON object;
//   - the turn did not stop with "error" or "aborted": a stream cut
//     mid-call leaves the partial parse of a prefix in "arguments";
//   - partialJson, when present, is blank or parses as a JSON object: the
//     whole streamed text (a cut stream leaves a prefix that does not
//     parse), or, when it does not parse, a tool result for the call
//     exists (answered): the tool ran with those arguments, so the
//     arguments are the call, whatever the leftover buffer holds.
//
// The last clause goes beyond OpenClaw on purpose (issue 29): OpenClaw
// drops such a call, and pairing then drops its result, so a finished
// `read {"path":"/"}` whose tool ran was lost with its output on every
// target.
//
// This generalises spec §3.5's "finalised OpenAI Responses call", which
// also asked for stopReason "toolUse", no input and a "call|item" id: the
// id rules rewrite that id before this rule runs for Chat, Gemini and
// Mistral targets, and a call's arguments do not depend on its id.
func completeArguments(m *transcript.Message, b *transcript.Block, answered func(*transcript.Block) bool) bool {
	if !isObject(b, "arguments") && !isObject(b, "input") {
		return false
	}
	if sr := m.StopReason(); sr == transcript.StopError || sr == transcript.StopAborted {
		return false
	}
	pj, ok := b.String("partialJson")
	if !ok || transcript.IsBlank(pj) {
		return true
	}
	if _, err := transcript.ParseObject([]byte(pj)); err == nil {
		return true
	}
	return answered(b)
}

// isObject reports whether member k of b is a JSON object.
func isObject(b *transcript.Block, k string) bool {
	raw, ok := b.Get(k)
	return ok && len(raw) > 0 && raw[0] == '{'
}

// spawnWithAttachments reports whether a call is sessions_spawn with a
// non-empty attachments array in its arguments or input.
func spawnWithAttachments(b *transcript.Block) bool {
	name, _ := callName(b)
	if strings.TrimSpace(name) != "sessions_spawn" {
		return false
	}
	for _, k := range []string{"arguments", "input"} {
		raw, ok := b.Get(k)
		if !ok || len(raw) == 0 || raw[0] != '{' {
			continue
		}
		obj, err := transcript.ParseObject(raw)
		if err != nil {
			continue
		}
		att, ok := obj.Get("attachments")
		if !ok {
			continue
		}
		if elems, err := transcript.ParseArray(att); err == nil && len(elems) > 0 {
			return true
		}
	}
	return false
}

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

// finalisedResponsesCall reports whether a call with partialJson is a
// finalised OpenAI Responses call (spec §3.5): the assistant stopped for tool
// use, the block has no input, its arguments are an object, its id is
// "call|item" with text on both sides, and partialJson is a JSON object or is
// blank while the arguments are {}.
func finalisedResponsesCall(m *transcript.Message, b *transcript.Block) bool {
	if m.StopReason() != transcript.StopToolUse || !b.IsNull("input") {
		return false
	}
	args, ok := b.Get("arguments")
	if !ok || len(args) == 0 || args[0] != '{' {
		return false
	}
	id, _ := b.String("id")
	call, item, found := strings.Cut(id, "|")
	if !found || transcript.TrimID(call) == "" || transcript.TrimID(item) == "" {
		return false
	}
	pj, _ := b.String("partialJson")
	if transcript.IsBlank(pj) {
		obj, err := transcript.ParseObject(args)
		return err == nil && len(obj.Fields) == 0
	}
	_, err := transcript.ParseObject([]byte(pj))
	return err == nil
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

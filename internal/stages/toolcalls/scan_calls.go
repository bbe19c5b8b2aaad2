package toolcalls

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// scanCalls walks the history once before the id pass. It records the
// trimmed id of every call (an orphan result never takes one of them, so
// the call keeps its id) and, when replay is set, finds the replay-safe
// signed-thinking turns whose call ids the id rule must keep (spec §3.6,
// newer build), reserves their raw ids in the resolver, and returns their
// message indexes.
//
// A turn qualifies when it has a thinking block and tool calls
// (toolCall/toolUse/functionCall), the target verifies its thinking
// (policy.VerifiesTurn: thinking another provider wrote does not bind its ids),
// and every call has input, a "id" that is
// non-blank, unique within the turn and not reserved by an earlier preserved
// turn, and a valid name that needs no trimming and is allowed; a call that
// already has a real (non-synthetic) result later in the history is checked
// without the allow-list. partialJson is not looked at. Beyond OpenClaw,
// every id must also be one the target accepts (IDLimits): a turn whose ids
// the provider would reject is not replay-safe, and its ids are rewritten.
func scanCalls(t *transcript.Transcript, env *stage.Env, r *resolver, replay bool) map[int]bool {
	allow := newAllowList(env.Settings.Request.AllowedToolNames)
	var lastReal map[string]int
	if replay && allow != nil {
		lastReal = lastRealResults(t.Messages, env.Settings.MissingToolResultText)
	}
	for _, m := range t.Messages {
		if !m.IsObject() || m.Role() != transcript.RoleAssistant {
			continue
		}
		blocks, _ := m.Blocks()
		for _, b := range blocks {
			if !b.IsToolCall() {
				continue
			}
			if id, ok := b.CallID(); ok {
				r.calls = append(r.calls, callSite{raw: id})
			}
		}
	}
	r.index()
	if !replay {
		return nil
	}
	var preserved map[int]bool
	for i, m := range t.Messages {
		if !m.IsObject() || m.Role() != transcript.RoleAssistant {
			continue
		}
		blocks, ok := m.Blocks()
		if !ok {
			continue
		}
		thinking, call := false, false
		for _, b := range blocks {
			switch b.Type() { // read once: each read decodes the member
			case transcript.BlockThinking, transcript.BlockRedactedThinking:
				thinking = true
			case transcript.BlockToolCall, transcript.BlockToolUse, transcript.BlockFunctionCall:
				call = true
			}
		}
		if !thinking || !call || !env.Policy.VerifiesTurn(m) {
			continue
		}
		ids, safe := replaySafeIDs(i, blocks, allow, lastReal, r)
		if !safe {
			continue
		}
		for _, id := range ids {
			r.reserve(id)
		}
		if preserved == nil {
			preserved = map[int]bool{}
		}
		preserved[i] = true
	}
	return preserved
}

// replaySafeIDs checks one signed turn and returns its raw call ids.
func replaySafeIDs(i int, blocks []*transcript.Block, allow allowList, lastReal map[string]int, r *resolver) ([]string, bool) {
	var ids []string
	seen := map[string]struct{}{}
	for _, b := range blocks {
		if !b.IsToolCall() {
			continue
		}
		raw, _ := b.String("id")
		key := transcript.TrimID(raw)
		if !hasInput(b) || key == "" || !r.limits.Valid(raw) {
			return nil, false
		}
		if r.taken(raw) {
			return nil, false
		}
		if _, dup := seen[raw]; dup {
			return nil, false
		}
		seen[raw] = struct{}{}
		name, ok := callName(b)
		if !ok || name != strings.TrimSpace(name) || !validToolName(name) {
			return nil, false
		}
		if !allow.allows(name) && lastReal[key] <= i {
			return nil, false
		}
		ids = append(ids, raw)
	}
	return ids, true
}

// lastRealResults maps each trimmed result id to the index of its last real
// (non-synthetic) tool result.
func lastRealResults(msgs []*transcript.Message, syntheticText string) map[string]int {
	last := map[string]int{}
	for i, m := range msgs {
		if !m.IsObject() || m.Role() != transcript.RoleToolResult || isSynthetic(m, syntheticText) {
			continue
		}
		if id, ok := m.ResultID(); ok {
			last[id] = i
		}
	}
	return last
}

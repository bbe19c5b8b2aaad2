package toolcalls

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// signedTurnSafe decides whether an immutable signed-thinking turn at index
// i may be replayed byte-identical (spec §3.5, newer build). Every tool call
// must have input, no partialJson unless its arguments are complete (see
// completeArguments: the turn is not edited, so the informational buffer
// stays), a non-blank "id" unique within the turn
// and not used by an earlier preserved signed turn, and a valid allowed name
// that needs no trimming. The "id" member is required (not one of the other
// id members): replay keeps the turn as it is, and the wire needs "id".
// When the turn has a sessions_spawn call with attachments, every call id
// must have a result later in the same span; when a result of the span is
// displaced (a non-result sits between the assistant and it), none of the
// turn's ids may have appeared in an earlier assistant.
func (r *inputsRun) signedTurnSafe(i int, blocks []*transcript.Block) bool {
	ids := make(map[string]struct{}, 4)
	spawn := false
	for _, b := range blocks {
		if !b.IsAnyToolCall() {
			continue
		}
		if !hasInput(b) || (hasPartialJSON(b) && !completeArguments(r.msgs[i], b, r.answered)) {
			return false
		}
		id := trimmedID(b)
		if id == "" {
			return false
		}
		if _, dup := ids[id]; dup {
			return false
		}
		if _, taken := r.preserved[id]; taken {
			return false
		}
		ids[id] = struct{}{}
		name, ok := callName(b)
		if !ok || name != strings.TrimSpace(name) || !validToolName(name) || !r.allow.allows(name) {
			return false
		}
		spawn = spawn || spawnWithAttachments(b)
	}
	results, displaced, end := r.span(i, spawn)
	if spawn {
		for id := range ids {
			if _, ok := results[id]; !ok {
				return false
			}
		}
	}
	if displaced {
		earlier := r.earlierThan(i)
		for id := range ids {
			if _, ok := earlier[id]; ok {
				return false
			}
		}
	}
	if end != nil {
		r.spanEnds = append(r.spanEnds, end)
	}
	return true
}

// span walks the messages after the assistant at i up to the next assistant
// and returns the trimmed ids of the tool results there (only withResults:
// only a turn that spawns with attachments needs them, so most walks build
// no set), whether one of them is displaced, and the assistant that ends
// the span (nil at the end). Spans of different assistants do not overlap,
// so the walks stay linear over the history. Non-object entries are skipped
// (this rule removes them).
func (r *inputsRun) span(i int, withResults bool) (map[string]struct{}, bool, *transcript.Message) {
	var results map[string]struct{}
	if withResults {
		results = map[string]struct{}{}
	}
	displaced, other := false, false
	for _, m := range r.msgs[i+1:] {
		if !m.IsObject() {
			continue
		}
		switch m.Role() {
		case transcript.RoleAssistant:
			return results, displaced, m
		case transcript.RoleToolResult:
			if id, ok := m.ResultID(); ok && withResults {
				results[id] = struct{}{}
			}
			displaced = displaced || other
		default:
			other = true
		}
	}
	return results, displaced, nil
}

package pairing

import (
	"bytes"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// pairedAsIs reads msgs once and reports whether the pairing repair
// (repair) would return them as they are, counting nothing: paired. It
// allocates nothing, where the repair keeps a record per call and per
// result (about 90 bytes a call on a clean history) to find that out.
// It holds when:
//   - no tool result comes before the first assistant with tool calls;
//   - each assistant with tool calls did not stop with "error" or
//     "aborted", and is followed at once by one result per call, in call
//     order, each with an id that matches its call's once trimmed and a
//     toolName the repair keeps as written (plainName);
//   - no other result follows a frame's answers, and no null entry
//     comes after the first frame began.
//
// Anything else (a history the repair may change, or one it would leave
// as it is for another reason, such as a real result replacing a later
// synthetic one) answers false, and the repair runs as before.
//
// exact reports, when paired, whether every result's id as written
// (RawResultID) is its call's id as written too: AlignResultIDs then has
// nothing to write.
func pairedAsIs(msgs []*transcript.Message) (paired, exact bool) {
	exact = true
	framed := false // a frame began: a null entry is dropped from here on
	for i := 0; i < len(msgs); {
		m := msgs[i]
		i++
		if !m.IsObject() {
			if framed && bytes.Equal(m.Raw(), []byte("null")) {
				return false, false
			}
			continue
		}
		switch roleOf(m) {
		case roleResult:
			return false, false // before any frame, or after its frame's answers
		case roleAssistant:
			calls := m.ToolCalls()
			if len(calls) == 0 {
				continue
			}
			if failedTurn(m) || len(msgs)-i < len(calls) {
				return false, false
			}
			for _, call := range calls {
				id, _ := call.CallID()
				ok, same := answers(msgs[i], id)
				if !ok {
					return false, false
				}
				exact = exact && same
				i++
			}
			framed = true
		}
	}
	return true, exact
}

// answers reports whether r is a tool result the repair gives to the call
// with id callID, where it stands, and keeps as written: its first id
// matches callID trimmed, and its toolName is plain. same reports whether
// that id is callID as written.
func answers(r *transcript.Message, callID string) (ok, same bool) {
	if !r.IsObject() || roleOf(r) != roleResult {
		return false, false
	}
	raw := r.RawResultID()
	if raw == "" || transcript.TrimID(raw) != transcript.TrimID(callID) {
		return false, false
	}
	if name, _ := r.Get("toolName"); !plainName(name) {
		return false, false
	}
	return true, raw == callID
}

package transcript

import "bytes"

// PairedCheck reads a history in order, a message at a time (Add), and
// tells (Paired) whether the tool-result pairing repair of spec §3.7
// (package pairing) would give it back as it is, counting nothing. It
// allocates nothing. It holds when:
//   - no tool result comes before the first assistant with tool calls
//     (ToolCalls);
//   - each assistant with tool calls did not stop with "error" or
//     "aborted", and is followed at once by one result per call, in call
//     order, each with an id (RawResultID) that matches its call's once
//     trimmed and a toolName the repair keeps as written (KeptToolName);
//   - no other result follows a frame's answers, and no null entry comes
//     after the first frame began.
//
// Anything else answers false (a history the repair may change, or one it
// would leave as it is for another reason), and the repair runs. The
// check is here, beside the message model, so that a rule that reads every
// call and result in order anyway (the tool-call id proof) tells it in the
// same read, for the pairing rule to take.
type PairedCheck struct {
	calls  []*Block // the open frame's calls
	next   int      // the next of calls a result must answer
	framed bool     // a frame began: a null entry is dropped from here on
	broken bool     // the history is known not to be paired as it is
	// inexact is set when a result matches its call's id only trimmed.
	inexact bool
}

// Add reads the next message of the history, and reports false once the
// history is known not to be paired as it is.
func (c *PairedCheck) Add(m *Message) bool {
	if c.broken {
		return false
	}
	if !m.IsObject() {
		c.broken = c.next < len(c.calls) || c.framed && bytes.Equal(m.Raw(), []byte("null"))
		return !c.broken
	}
	switch m.Role() {
	case RoleToolResult:
		if c.next >= len(c.calls) {
			c.broken = true // before any frame, or after its frame's answers
			return false
		}
		id, _ := c.calls[c.next].CallID()
		same, ok := answers(m, id)
		c.broken, c.inexact = !ok, c.inexact || !same
		c.next++
	case RoleAssistant:
		calls := m.ToolCalls()
		if len(calls) == 0 {
			c.broken = c.next < len(c.calls)
			break
		}
		sr := m.StopReason()
		c.broken = c.next < len(c.calls) || sr == StopError || sr == StopAborted
		c.calls, c.next, c.framed = calls, 0, true
	default:
		c.broken = c.next < len(c.calls)
	}
	return !c.broken
}

// Paired reports, once every message is added, whether the history is
// paired as it is, and, when it is, whether every result's id as written
// is its call's id as written too (exact).
func (c *PairedCheck) Paired() (paired, exact bool) {
	paired = !c.broken && c.next == len(c.calls)
	return paired, paired && !c.inexact
}

// answers reports whether result r answers the call with id callID where
// it stands and is kept as written: its first id matches callID trimmed,
// and its toolName is kept (KeptToolName); same, whether that id is
// callID as written.
func answers(r *Message, callID string) (same, ok bool) {
	raw := r.RawResultID()
	if raw == "" || TrimID(raw) != TrimID(callID) {
		return false, false
	}
	if name, _ := r.Get("toolName"); !KeptToolName(name) {
		return false, false
	}
	return raw == callID, true
}

// KeptToolName reports whether a raw toolName is a non-empty JSON string
// without escapes and without white space at either end, so that the
// pairing repair's name normalisation keeps it as it is.
func KeptToolName(raw []byte) bool {
	if len(raw) < 3 || raw[0] != '"' || raw[len(raw)-1] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return false
	}
	return !isSpaceByte(raw[1]) && !isSpaceByte(raw[len(raw)-2])
}

// isSpaceByte reports whether c is ASCII white space, or may start a
// multi-byte character that strings.TrimSpace could remove.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c >= 0x80
}

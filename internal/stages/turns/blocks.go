package turns

import (
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// isBlankText reports whether b is a text block whose text is blank. A text
// block without a string text counts as blank: no provider accepts it, and
// treating it alike in every rule keeps the chain idempotent.
func isBlankText(b *transcript.Block) bool {
	if b.Type() != transcript.BlockText {
		return false
	}
	return b.BlankText()
}

// withoutBlankText returns blocks without its blank text blocks, and how
// many it removed. When none is blank it returns blocks itself.
func withoutBlankText(blocks []*transcript.Block) ([]*transcript.Block, int) {
	removed := 0
	for _, b := range blocks {
		if isBlankText(b) {
			removed++
		}
	}
	if removed == 0 {
		return blocks, 0
	}
	kept := make([]*transcript.Block, 0, len(blocks)-removed)
	for _, b := range blocks {
		if !isBlankText(b) {
			kept = append(kept, b)
		}
	}
	return kept, removed
}

// signatureFields are the members that carry a thinking block's signature
// (spec §3.4.1); redacted_thinking also carries it in data.
var signatureFields = []string{"thinkingSignature", "signature", "thought_signature"}

// stripSignatures deletes every signature member of a thinking block and
// reports whether one was present.
func stripSignatures(b *transcript.Block) bool {
	changed := false
	for _, k := range signatureFields {
		if b.Delete(k) {
			changed = true
		}
	}
	if b.Type() == transcript.BlockRedactedThinking && b.Delete("data") {
		changed = true
	}
	return changed
}

// stripMessageSignatures strips the signatures of every thinking block of an
// assistant and returns how many blocks lost one.
func stripMessageSignatures(m *transcript.Message) int {
	blocks, _ := m.Blocks()
	n := 0
	for _, b := range blocks {
		if b.IsThinking() && stripSignatures(b) {
			n++
		}
	}
	return n
}

// hasReplayableSignature reports whether a thinking block carries a non-blank
// string signature (spec §3.4.3); for redacted_thinking, data counts too.
func hasReplayableSignature(b *transcript.Block) bool {
	for _, k := range signatureFields {
		if b.NonBlank(k) {
			return true
		}
	}
	return b.Type() == transcript.BlockRedactedThinking && b.NonBlank("data")
}

// everyBlock is dropThinking's drop for all of a message's thinking.
func everyBlock(*transcript.Block) bool { return true }

// dropThinking removes the thinking blocks of m for which drop returns true.
// When that empties the content, the content becomes the omitted-reasoning
// text (spec §3.4.3, §3.8). It returns how many blocks it removed.
func dropThinking(m *transcript.Message, drop func(*transcript.Block) bool) int {
	blocks, ok := m.Blocks()
	if !ok {
		return 0
	}
	removed := 0
	for _, b := range blocks {
		if b.IsThinking() && drop(b) {
			removed++
		}
	}
	if removed == 0 {
		return 0
	}
	kept := make([]*transcript.Block, 0, len(blocks)-removed)
	for _, b := range blocks {
		if !(b.IsThinking() && drop(b)) {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		kept = append(kept, transcript.TextBlock(omittedReasoning))
	}
	m.SetBlocks(kept)
	return removed
}

// stampMs is the time a rule stamps on a message it creates: the runner's
// clock when the job sent one, else the owning message's timestamp. ok is
// false when neither is known; the rule then leaves the timestamp out.
func stampMs(env *stage.Env, owner *transcript.Message) (int64, bool) {
	if now, ok := env.Settings.Request.Now(); ok {
		return now, true
	}
	if owner != nil {
		return owner.Timestamp()
	}
	return 0, false
}

// hasRole reports whether the entry is an object with a string role; entries
// without one pass through the turn rules untouched.
func hasRole(m *transcript.Message) bool { return m.Role() != "" }

// currentTurnToolCall returns the index of the assistant of the current
// tool turn (spec §3.4.3, §3.8.4), or -1: the first assistant after the last
// user message (so no other assistant sits between it and that user), when
// it has a tool call and a tool result follows it before the next assistant.
func currentTurnToolCall(msgs []*transcript.Message) int {
	first := -1
	for i := lastIndexOfRole(msgs, transcript.RoleUser) + 1; i < len(msgs); i++ {
		if msgs[i].Role() == transcript.RoleAssistant {
			first = i
			break
		}
	}
	if first < 0 || !hasToolCallBlock(msgs[first]) {
		return -1
	}
	for j := first + 1; j < len(msgs); j++ {
		switch msgs[j].Role() {
		case transcript.RoleToolResult, transcript.RoleTool:
			return first
		case transcript.RoleAssistant:
			return -1
		}
	}
	return -1
}

// hasToolCallBlock reports whether m has a tool-call block with an id.
func hasToolCallBlock(m *transcript.Message) bool {
	blocks, _ := m.Blocks()
	for _, b := range blocks {
		if b.IsToolCall() {
			if _, ok := b.CallID(); ok {
				return true
			}
		}
	}
	return false
}

// lastIndexOfRole returns the index of the last message with role, or -1.
func lastIndexOfRole(msgs []*transcript.Message, role string) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role() == role {
			return i
		}
	}
	return -1
}

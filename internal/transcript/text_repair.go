package transcript

import "github.com/hygiene-dev/hygiene/internal/transcript/jsontape"

// Invalid text: a string that holds bytes that are not UTF-8 (a tool printed
// a binary file) or a \uD800–\uDFFF escape without its other half (an emoji
// cut in two). The scanner accepts both as JSON text and marks the message;
// the text-repair rule (turns.TextRepair) calls RepairText, which rewrites
// each such string with U+FFFD in place of each bad byte and each lone
// surrogate, as encoding/json and JavaScript's toWellFormed do. Providers
// refuse the whole request otherwise (Anthropic: "no low surrogate in
// string", anthropics/claude-code #2108, #3277, #6273, #6508, #8108).

// HasInvalidText reports whether the decoder found invalid text in the
// message (its members, its content blocks, or anything nested in them).
func (m *Message) HasInvalidText() bool { return m.invalidText }

// HasInvalidText reports whether the block holds invalid text: its bytes
// as read, or its encoding once a rule edited it (the members it did not
// replace are still the input's). A block built by a rule never does.
func (b *Block) HasInvalidText() bool {
	raw := b.Raw()
	if raw == nil {
		return false
	}
	if b.Changed() {
		raw = b.AppendJSON(nil)
	}
	return jsontape.HasInvalidText(raw)
}

// RepairText rewrites every string of the message that holds invalid text,
// member values, object keys and content blocks alike, and returns the
// number of U+FFFD it wrote. A message without invalid text is left as it
// is (byte-identical); only the strings that need it are re-encoded.
func (m *Message) RepairText() int {
	if !m.invalidText {
		return 0
	}
	m.invalidText = false
	if !m.members.IsObject() {
		fixed, n := jsontape.RepairJSON(m.members.Raw())
		m.members.setRaw(fixed)
		return n
	}
	n := 0
	for _, b := range m.blocks {
		if c := b.repairText(); c > 0 {
			n += c
			m.changed = true
		}
	}
	n += m.members.repairMembers(m.isArray)
	return n
}

// repairText is RepairText for one content block.
func (b *Block) repairText() int {
	if !b.HasInvalidText() {
		return 0
	}
	if !b.IsObject() {
		fixed, n := jsontape.RepairJSON(b.Raw())
		b.setRaw(fixed)
		return n
	}
	return b.repairMembers(false)
}

// repairMembers repairs the member values (all but an array content, when
// skipContent) and counts the keys with invalid text, which re-encoding the
// object repairs; the value is marked changed when anything was repaired.
func (n *node) repairMembers(skipContent bool) int {
	ov := n.own()
	n.kindValue, n.stopValue, n.usageWhole = 0, 0, false // a repaired value may be the kind's, the stop reason's or the usage
	count := 0
	for i := range ov.obj.Fields {
		f := &ov.obj.Fields[i]
		if skipContent && f.Key == "content" {
			continue
		}
		if fixed, c := jsontape.RepairJSON(f.Value); c > 0 {
			f.Value, count = fixed, count+c
		}
	}
	if ov.raw != nil {
		count += jsontape.InvalidKeys(ov.raw)
	}
	if count > 0 {
		ov.dirty = true
	}
	return count
}

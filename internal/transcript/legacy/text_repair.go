package legacy

import (
	"unicode/utf8"
)

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

// HasInvalidText reports whether the block, as read from the input, holds
// invalid text. A block built by a rule never does.
func (b *Block) HasInvalidText() bool {
	if b.raw == nil {
		return false
	}
	s := scanner{data: b.raw, maxDepth: unlimitedDepth}
	_, _ = s.value(s.skipSpace(0), 0)
	return s.invalidText > 0
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
		fixed, n := repairJSON(m.members.raw)
		m.members.raw = fixed
		return n
	}
	blocks, isArray := m.Blocks()
	n := 0
	for _, b := range blocks {
		if c := b.repairText(); c > 0 {
			n += c
			m.content.changed = true
		}
	}
	n += m.members.repairMembers(isArray)
	return n
}

// repairText is RepairText for one content block.
func (b *Block) repairText() int {
	if !b.HasInvalidText() {
		return 0
	}
	b.load()
	if !b.isObject {
		var n int
		b.raw, n = repairJSON(b.raw)
		return n
	}
	return b.node.repairMembers(false)
}

// repairMembers repairs the member values (all but an array content, when
// skipContent) and counts the keys with invalid text, which re-encoding the
// object repairs; the value is marked changed when anything was repaired.
func (n *node) repairMembers(skipContent bool) int {
	count := 0
	n.kindKey = "" // the values below may change
	for i := range n.obj.Fields {
		f := &n.obj.Fields[i]
		if skipContent && f.Key == "content" {
			continue
		}
		if fixed, c := repairJSON(f.Value); c > 0 {
			f.Value, count = fixed, count+c
		}
	}
	if n.raw != nil {
		count += invalidKeys(n.raw)
	}
	if count > 0 {
		n.dirty = true
	}
	return count
}

// invalidKeys counts the invalid characters in the keys of the object raw
// (its own keys, not those of nested objects).
func invalidKeys(raw []byte) int {
	s := scanner{data: raw, maxDepth: unlimitedDepth}
	i := s.skipSpace(0)
	if i >= len(raw) || raw[i] != '{' {
		return 0
	}
	count := 0
	for i = s.skipSpace(i + 1); i < len(raw) && raw[i] == '"'; {
		end, err := s.str(i)
		if err != nil {
			return count
		}
		count += textFaults(raw[i+1 : end-1])
		i = s.skipSpace(end)
		if i >= len(raw) || raw[i] != ':' {
			return count
		}
		if i, err = s.value(s.skipSpace(i+1), 0); err != nil {
			return count
		}
		if i = s.skipSpace(i); i < len(raw) && raw[i] == ',' {
			i = s.skipSpace(i + 1)
		}
	}
	return count
}

// repairJSON returns the JSON text raw with every string that holds invalid
// text re-encoded with U+FFFD (escaped as \ufffd) for each bad byte and
// each lone surrogate, and the number of replacements. raw itself is
// returned when there is none. raw must be valid JSON text to the scanner.
func repairJSON(raw []byte) ([]byte, int) {
	s := scanner{data: raw, maxDepth: unlimitedDepth}
	var out []byte
	last, count := 0, 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		before := s.invalidText
		end, err := s.str(i)
		if err != nil {
			return raw, 0 // not JSON text: nothing this can repair safely
		}
		if s.invalidText != before {
			body := raw[i+1 : end-1]
			count += textFaults(body)
			if out == nil {
				out = make([]byte, 0, len(raw)+16)
			}
			out = append(out, raw[last:i]...)
			decoded, _ := unescape(make([]byte, 0, len(body)), body, 0)
			out = AppendString(out, aliasString(decoded))
			last = end
		}
		i = end - 1
	}
	if out == nil {
		return raw, 0
	}
	return append(out, raw[last:]...), count
}

// textFaults counts the bad bytes and lone surrogate escapes of a string
// body (its raw bytes between the quotes): the number of U+FFFD a repair
// writes.
func textFaults(body []byte) int {
	n := 0
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body) && body[i+1] == 'u' && i+6 <= len(body):
			step := surrogateEscape(body, i)
			if step == 0 {
				n++
				step = 6
			}
			i += step
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				n++
			}
			i += size
		}
	}
	return n
}

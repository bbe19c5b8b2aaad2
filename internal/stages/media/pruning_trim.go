package media

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// prunedImageMarker stands in for an image of a soft-trimmed tool result
// (spec §3.18, exact).
const prunedImageMarker = "[image removed during context pruning]"

// trimSettings size a soft trim, in UTF-16 code units.
type trimSettings struct {
	maxChars, headChars, tailChars int
}

// softTrim returns the single text a prunable tool result's content
// becomes, or ok=false when it stays as it is (spec §3.18 step 4). The parts
// are the text blocks, with each image replaced by prunedImageMarker;
// string content is one part. Parts are joined by "\n". A result longer
// than maxChars keeps its first headChars and last tailChars units around
// "\n...\n" and gains the trim note; a shorter one is rewritten only when it
// had images. A result that already is exactly one trimmed text with the
// note for these head and tail sizes is left alone, so a second run over
// the output changes nothing even when the note makes it longer than
// maxChars.
func softTrim(m *transcript.Message, s trimSettings) (text string, ok bool) {
	rawLen, images, ok := measureParts(m)
	if !ok {
		return "", false
	}
	fits := rawLen <= s.maxChars || s.headChars+s.tailChars >= rawLen
	if fits && images == 0 {
		return "", false // the common case: no text is decoded
	}
	parts := trimParts(m)
	if fits {
		return strings.Join(parts, "\n"), true
	}
	if images == 0 && len(parts) == 1 && isTrimmed(parts[0], s) {
		return "", false
	}
	var b strings.Builder
	b.WriteString(takeHead(parts, s.headChars))
	b.WriteString("\n...\n")
	b.WriteString(takeTail(parts, s.tailChars))
	b.WriteString(trimNote(s, rawLen))
	return b.String(), true
}

// measureParts returns the length of a tool result's parts joined by "\n"
// and its count of images, from the raw JSON; ok is false when the content
// is neither a string nor an array.
func measureParts(m *transcript.Message) (rawLen, images int, ok bool) {
	raw, _ := m.Get("content")
	if len(raw) > 0 && raw[0] == '"' {
		return rawUTF16Len(raw), 0, true
	}
	blocks, isArray := m.Blocks()
	if !isArray {
		return 0, 0, false
	}
	parts := 0
	for _, b := range blocks {
		switch b.Type() {
		case transcript.BlockText:
			if t, _ := b.Get("text"); len(t) > 0 && t[0] == '"' {
				rawLen += rawUTF16Len(t)
				parts++
			}
		case transcript.BlockImage:
			rawLen += len(prunedImageMarker)
			parts++
			images++
		}
	}
	if parts > 0 {
		rawLen += parts - 1
	}
	return rawLen, images, true
}

// trimParts returns the parts of a tool result's content: its string
// content, or its text blocks with each image replaced by
// prunedImageMarker.
func trimParts(m *transcript.Message) []string {
	if s, isString := m.ContentString(); isString {
		return []string{s}
	}
	blocks, _ := m.Blocks()
	var parts []string
	for _, b := range blocks {
		switch b.Type() {
		case transcript.BlockText:
			if t, isText := b.Text(); isText {
				parts = append(parts, t)
			}
		case transcript.BlockImage:
			parts = append(parts, prunedImageMarker)
		}
	}
	return parts
}

// trimNote is the note a soft trim appends.
func trimNote(s trimSettings, rawLen int) string {
	return trimNotePrefix(s) + strconv.Itoa(rawLen) + " chars.]"
}

func trimNotePrefix(s trimSettings) string {
	return "\n\n[Tool result trimmed: kept first " + strconv.Itoa(s.headChars) +
		" chars and last " + strconv.Itoa(s.tailChars) + " chars of "
}

// isTrimmed reports whether text is a soft trim's output for these sizes:
// it ends with the note for them.
func isTrimmed(text string, s trimSettings) bool {
	if !strings.HasSuffix(text, " chars.]") {
		return false
	}
	body := text[:len(text)-len(" chars.]")]
	digits := len(body)
	for digits > 0 && body[digits-1] >= '0' && body[digits-1] <= '9' {
		digits--
	}
	if digits == len(body) {
		return false
	}
	return strings.HasSuffix(body[:digits], trimNotePrefix(s)) && strings.Contains(body[:digits], "\n...\n")
}

// takeHead returns the first n UTF-16 units of the parts joined by "\n".
func takeHead(parts []string, n int) string {
	if n <= 0 || len(parts) == 0 {
		return ""
	}
	var b strings.Builder
	remaining := n
	for i, p := range parts {
		if remaining <= 0 {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
			remaining--
			if remaining <= 0 {
				break
			}
		}
		if l := utf16Len(p); l <= remaining {
			b.WriteString(p)
			remaining -= l
		} else {
			b.WriteString(headUnits(p, remaining))
			remaining = 0
		}
	}
	return b.String()
}

// takeTail returns the last n UTF-16 units of the parts joined by "\n".
func takeTail(parts []string, n int) string {
	if n <= 0 || len(parts) == 0 {
		return ""
	}
	var pieces []string
	remaining := n
	for i := len(parts) - 1; i >= 0 && remaining > 0; i-- {
		p := parts[i]
		if l := utf16Len(p); l <= remaining {
			pieces = append(pieces, p)
			remaining -= l
		} else {
			pieces = append(pieces, tailUnits(p, remaining))
			break
		}
		if remaining > 0 && i > 0 {
			pieces = append(pieces, "\n")
			remaining--
		}
	}
	var b strings.Builder
	for i := len(pieces) - 1; i >= 0; i-- {
		b.WriteString(pieces[i])
	}
	return b.String()
}

// replacementChar stands in for half of a surrogate pair that a cut
// splits: JavaScript would keep a lone surrogate, which is not valid
// Unicode and which providers reject, so the half becomes U+FFFD (still one
// code unit, so every length stays as the spec counts it).
const replacementChar = "\uFFFD"

// headUnits returns the first n UTF-16 units of s (n < utf16Len(s)).
func headUnits(s string, n int) string {
	used := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		u := units(r)
		if used+u > n {
			if used < n {
				return s[:i] + replacementChar
			}
			return s[:i]
		}
		used += u
		i += size
	}
	return s
}

// tailUnits returns the last n UTF-16 units of s (n < utf16Len(s)).
func tailUnits(s string, n int) string {
	used := 0
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		u := units(r)
		if used+u > n {
			if used < n {
				return replacementChar + s[i:]
			}
			return s[i:]
		}
		used += u
		i -= size
	}
	return s
}

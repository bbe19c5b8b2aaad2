package transcript

import (
	"unicode"
	"unicode/utf8"
)

// TrimID removes leading and trailing white space from a tool-call or
// tool-result id exactly as JavaScript's String.prototype.trim does, because
// OpenClaw compares ids after trim(): ECMAScript's WhiteSpace (tab, U+000B,
// U+000C, space, U+00A0, U+FEFF and every other Zs character) and
// LineTerminator (U+000A, U+000D, U+2028, U+2029). Unlike strings.TrimSpace
// it removes U+FEFF and keeps U+0085 (ECMA-262 §12.2 White Space, §12.3 Line
// Terminators, §22.1.3.32 String.prototype.trim). Every rule that compares
// ids trims them with this one function; an exact match of the raw ids
// still wins over a match after trimming (see the pairing repair).
func TrimID(s string) string {
	if len(s) == 0 || plainEdge(s[0]) && plainEdge(s[len(s)-1]) {
		return s // as almost every id: nothing to trim, and no rune decoded
	}
	start := 0
	for start < len(s) {
		r, size := utf8.DecodeRuneInString(s[start:])
		if !isJSSpace(r) {
			break
		}
		start += size
	}
	end := len(s)
	for end > start {
		r, size := utf8.DecodeLastRuneInString(s[start:end])
		if !isJSSpace(r) {
			break
		}
		end -= size
	}
	return s[start:end]
}

// plainEdge reports whether an id that starts or ends with byte c keeps
// it: printable ASCII other than the space, which JavaScript never trims.
func plainEdge(c byte) bool { return c > ' ' && c < utf8.RuneSelf }

// isJSSpace reports whether r is in the set String.prototype.trim removes.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0xFEFF, 0x2028, 0x2029:
		return true
	}
	return r > 0xFF && unicode.Is(unicode.Zs, r)
}

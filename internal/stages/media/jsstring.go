package media

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Text lengths as JavaScript measures them (spec §3.18): a string's length
// is its count of UTF-16 code units, and the pruning estimate weights
// CJK, Hangul and kana code points 4.

// cjkWeight is the estimate of one CJK/Hangul/kana code point.
const cjkWeight = 4

// isCJK reports whether r is in the estimate's wide ranges:
// [\u2E80-\u9FFF\uA000-\uA4FF\uAC00-\uD7AF\uF900-\uFAFF\u{20000}-\u{2FA1F}].
func isCJK(r rune) bool {
	switch {
	case r < 0x2E80:
		return false
	case r <= 0x9FFF:
		return true
	case r >= 0xA000 && r <= 0xA4FF, r >= 0xAC00 && r <= 0xD7AF, r >= 0xF900 && r <= 0xFAFF:
		return true
	}
	return r >= 0x20000 && r <= 0x2FA1F
}

// units returns the UTF-16 length of one code point.
func units(r rune) int {
	if r > 0xFFFF {
		return 2
	}
	return 1
}

// weight returns the estimate of one code point: 4 for the wide ranges
// (an Extension-B pair counts as one code point), else its UTF-16 length.
func weight(r rune) int {
	if isCJK(r) {
		return cjkWeight
	}
	return units(r)
}

// weightedLen returns the pruning estimate of a decoded string.
func weightedLen(s string) int64 { return decodedLen(s, weight) }

// utf16Len returns the JavaScript length of a decoded string.
func utf16Len(s string) int { return int(decodedLen(s, units)) }

// decodedLen sums per(r) over the code points of s; ASCII counts 1.
func decodedLen(s string, per func(rune) int) int64 {
	var n int64
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += int64(per(r))
		i += size
	}
	return n
}

// rawCodePoint decodes the code point at body[i] of a raw JSON string body
// (the text between the quotes, escapes included). lone is true for an
// escaped surrogate without its partner, which JavaScript keeps as one
// code unit. It returns the index past the code point.
func rawCodePoint(body []byte, i int) (r rune, lone bool, next int) {
	c := body[i]
	if c != '\\' {
		if c < utf8.RuneSelf {
			return rune(c), false, i + 1
		}
		r, size := utf8.DecodeRune(body[i:])
		return r, false, i + size
	}
	if i+1 >= len(body) {
		return utf8.RuneError, false, len(body)
	}
	switch body[i+1] {
	case 'b':
		return '\b', false, i + 2
	case 'f':
		return '\f', false, i + 2
	case 'n':
		return '\n', false, i + 2
	case 'r':
		return '\r', false, i + 2
	case 't':
		return '\t', false, i + 2
	case 'u':
	default:
		return rune(body[i+1]), false, i + 2
	}
	u, ok := hex4(body, i+2)
	if !ok {
		return utf8.RuneError, false, len(body)
	}
	next = i + 6
	switch {
	case utf16.IsSurrogate(u) && u < 0xDC00:
		if next+6 <= len(body) && body[next] == '\\' && body[next+1] == 'u' {
			if lo, ok := hex4(body, next+2); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return utf16.DecodeRune(u, lo), false, next + 6
			}
		}
		return u, true, next
	case utf16.IsSurrogate(u):
		return u, true, next
	}
	return u, false, next
}

// hex4 decodes the four hex digits at b[i:i+4].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// rawStringBody returns the body of a raw JSON string value, or ok=false
// when raw is not a string.
func rawStringBody(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	return raw[1 : len(raw)-1], true
}

// rawWeightedLen returns the pruning estimate of a raw JSON string value
// without decoding it; 0 when raw is not a string.
func rawWeightedLen(raw []byte) int64 { return rawLen(raw, weight) }

// rawUTF16Len returns the JavaScript length of a raw JSON string value
// without decoding it (a lone escaped surrogate is one unit, as the U+FFFD
// it decodes to); 0 when raw is not a string.
func rawUTF16Len(raw []byte) int { return int(rawLen(raw, units)) }

// rawLen sums per(r) over the code points of a raw JSON string value without
// decoding it; plain ASCII and lone escaped surrogates count 1. It is 0 when
// raw is not a string.
func rawLen(raw []byte, per func(rune) int) int64 {
	body, ok := rawStringBody(raw)
	if !ok {
		return 0
	}
	var n int64
	for i := 0; i < len(body); {
		c := body[i]
		if c < utf8.RuneSelf && c != '\\' {
			n++
			i++
			continue
		}
		r, lone, next := rawCodePoint(body, i)
		if lone {
			n++
		} else {
			n += int64(per(r))
		}
		i = next
	}
	return n
}

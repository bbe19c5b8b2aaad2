package jsontape

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// DecodeString decodes a raw JSON string (quotes included). Strings without
// escapes are converted directly; escaped ones are unescaped in one pass
// (invalid surrogates become U+FFFD, as encoding/json does).
func DecodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 {
		return AliasString(body), true
	}
	out, ok := unescape(make([]byte, 0, len(body)), body, i)
	return AliasString(out), ok
}

// AliasString views b as a string without copying. It is safe here because
// no byte slice this package holds is ever written after it is created: the
// input buffer is read-only by contract (DecodeJob), values are replaced,
// never modified in place, and unescaped copies are not kept elsewhere.
// Rules read roles, types and ids of every message many times; copying each
// one would cost an allocation per read.
func AliasString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// unescape appends body to dst with its escapes decoded; the first
// backslash is at index i.
func unescape(dst, body []byte, i int) ([]byte, bool) {
	dst = append(dst, body[:i]...)
	for i < len(body) {
		c := body[i]
		if c != '\\' {
			j := bytes.IndexByte(body[i:], '\\')
			if j < 0 {
				return append(dst, body[i:]...), true
			}
			dst = append(dst, body[i:i+j]...)
			i += j
			continue
		}
		if i+1 >= len(body) {
			return nil, false
		}
		switch e := body[i+1]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(body, i+2)
			if !ok {
				return nil, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					r2, ok2 = hex4(body, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			return nil, false
		}
		i += 2
	}
	return dst, true
}

// Hex4 reads the four hexadecimal digits at b[at:], the XXXX of a \uXXXX
// escape in JSON text.
func Hex4(b []byte, at int) (rune, bool) { return hex4(b, at) }

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// UnquoteBytes decodes a raw JSON string value, returning a sub-slice of raw
// when it has no escapes (so large base64 payloads are not copied).
func UnquoteBytes(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return body, true
	}
	return unescape(make([]byte, 0, len(body)), body, bytes.IndexByte(body, '\\'))
}

// AppendUnquoted appends the decoded text of the raw JSON string raw to
// dst.
func AppendUnquoted(dst, raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return dst, false
	}
	body := raw[1 : len(raw)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 {
		return append(dst, body...), true
	}
	return unescape(dst, body, i)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. It escapes only what JSON
// requires (quote, backslash, control characters); HTML characters are left
// as they are, and invalid UTF-8 becomes U+FFFD, as encoding/json does.
func AppendString(dst []byte, s string) []byte {
	i := 0
	for i < len(s) && plainStringByte[s[i]] { // a byte a table look-up: most names and values are plain throughout
		i++
	}
	dst = append(dst, '"')
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

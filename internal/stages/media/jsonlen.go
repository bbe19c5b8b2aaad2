package media

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// jsonStringifyLen returns the length, in UTF-16 code units, of
// JavaScript's JSON.stringify of the value that JSON.parse makes of raw:
// compact, object members deduplicated (the last value wins, at the first
// key's place), numbers re-printed the JavaScript way, strings escaped as
// JSON.stringify escapes them. It is the spec §3.18 estimate of a toolCall's
// arguments. raw must be valid JSON (the transcript codec validates every
// value it holds); the measurer does not re-validate escapes or number
// grammar, and reports ok=false only when raw is not shaped as one value.
func jsonStringifyLen(raw []byte) (n int64, ok bool) {
	n, end, ok := stringifyLen(raw, skipWS(raw, 0))
	if !ok || skipWS(raw, end) != len(raw) {
		return 0, false
	}
	return n, true
}

// stringifyLen measures the value starting at raw[i] and returns its
// length and the index past it.
func stringifyLen(raw []byte, i int) (n int64, end int, ok bool) {
	if i >= len(raw) {
		return 0, i, false
	}
	switch c := raw[i]; {
	case c == '{':
		return objectLen(raw, i)
	case c == '[':
		return arrayLen(raw, i)
	case c == '"':
		end, ok := stringEnd(raw, i)
		if !ok {
			return 0, i, false
		}
		return escapedLen(raw[i+1 : end-1]), end, true
	case c == 't' || c == 'n':
		return 4, i + 4, i+4 <= len(raw)
	case c == 'f':
		return 5, i + 5, i+5 <= len(raw)
	default:
		end := i
		for end < len(raw) && isNumberByte(raw[end]) {
			end++
		}
		if end == i {
			return 0, i, false
		}
		return numberLen(raw[i:end]), end, true
	}
}

// objectLen measures an object. Duplicate keys are kept once, with the
// last value, as JSON.parse does.
func objectLen(raw []byte, i int) (int64, int, bool) {
	type member struct {
		keyLen, valLen int64
	}
	var members []member
	var index map[string]int
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return 2, i + 1, true
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return 0, i, false
		}
		kend, ok := stringEnd(raw, i)
		if !ok {
			return 0, i, false
		}
		keyRaw := raw[i:kend]
		i = skipWS(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return 0, i, false
		}
		vlen, vend, ok := stringifyLen(raw, skipWS(raw, i+1))
		if !ok {
			return 0, vend, false
		}
		key, _ := decodeKey(keyRaw)
		if index == nil {
			index = map[string]int{}
		}
		if at, dup := index[key]; dup {
			members[at].valLen = vlen
		} else {
			index[key] = len(members)
			members = append(members, member{keyLen: escapedLen(keyRaw[1 : len(keyRaw)-1]), valLen: vlen})
		}
		i = skipWS(raw, vend)
		if i >= len(raw) {
			return 0, i, false
		}
		if raw[i] == ',' {
			i = skipWS(raw, i+1)
			continue
		}
		if raw[i] != '}' {
			return 0, i, false
		}
		n := int64(2 + len(members) - 1)
		for _, m := range members {
			n += m.keyLen + 1 + m.valLen
		}
		return n, i + 1, true
	}
}

// decodeKey returns a comparable form of a raw key: its decoded code
// points, so that "a" and "\u0061" are the same member.
func decodeKey(raw []byte) (string, bool) {
	body, ok := rawStringBody(raw)
	if !ok {
		return "", false
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		r, lone, next := rawCodePoint(body, i)
		if lone {
			// Keep lone surrogates distinct from U+FFFD and each other.
			out = append(out, 0xFF, byte(r>>8), byte(r))
		} else {
			out = utf8.AppendRune(out, r)
		}
		i = next
	}
	return string(out), true
}

// arrayLen measures an array.
func arrayLen(raw []byte, i int) (int64, int, bool) {
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return 2, i + 1, true
	}
	n := int64(1)
	for {
		vlen, vend, ok := stringifyLen(raw, i)
		if !ok {
			return 0, vend, false
		}
		n += vlen
		i = skipWS(raw, vend)
		if i >= len(raw) {
			return 0, i, false
		}
		n++ // ',' or ']'
		if raw[i] == ',' {
			i = skipWS(raw, i+1)
			continue
		}
		if raw[i] != ']' {
			return 0, i, false
		}
		return n, i + 1, true
	}
}

// escapedLen returns the length of JSON.stringify of the string whose raw
// body is given, quotes included.
func escapedLen(body []byte) int64 {
	n := int64(2)
	for i := 0; i < len(body); {
		c := body[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '\\' && c != '"' {
			n++
			i++
			continue
		}
		r, lone, next := rawCodePoint(body, i)
		switch {
		case lone:
			n += 6 // \udXXX
		case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
			n += 2
		case r < 0x20:
			n += 6 // \u00XX
		default:
			n += int64(units(r))
		}
		i = next
	}
	return n
}

// numberLen returns the length of JavaScript's Number::toString of the
// number a JSON number literal parses to ("null" for one that overflows).
func numberLen(lit []byte) int64 {
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil && !math.IsInf(f, 0) && f != 0 {
		return int64(len(lit))
	}
	if math.IsInf(f, 0) {
		return 4 // JSON.stringify(Infinity) is "null"
	}
	if f == 0 {
		return 1 // "0", also for -0
	}
	var sign int64
	if f < 0 {
		sign, f = 1, -f
	}
	// Shortest round-trip digits d.ddd and exponent e: value = 0.ddd × 10^n with n = e+1.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp := s, ""
	for j := 0; j < len(s); j++ {
		if s[j] == 'e' {
			mant, exp = s[:j], s[j+1:]
			break
		}
	}
	k := int64(len(mant))
	if k > 1 {
		k-- // the decimal point
	}
	e, _ := strconv.Atoi(exp)
	n := int64(e) + 1
	switch {
	case k <= n && n <= 21:
		return sign + n
	case 0 < n && n <= 21:
		return sign + k + 1
	case -6 < n && n <= 0:
		return sign + 2 + -n + k
	}
	expDigits := int64(len(strconv.Itoa(abs(int(n - 1)))))
	body := k + 2 + expDigits // digits, "e", sign of the exponent
	if k > 1 {
		body++ // decimal point
	}
	return sign + body
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// stringEnd returns the index past the string starting at raw[i].
func stringEnd(raw []byte, i int) (int, bool) {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(raw), false
}

func skipWS(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

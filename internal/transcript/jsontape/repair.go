package jsontape

import "unicode/utf8"

// HasInvalidText reports whether the JSON text raw holds invalid text: a
// string with invalid UTF-8, or a lone UTF-16 surrogate escape. The scanner
// accepts both as JSON text (a tool that printed a binary file must not
// cost the whole session); the text-repair rule rewrites them (RepairJSON).
func HasInvalidText(raw []byte) bool {
	s := scanner{data: raw, maxDepth: unlimitedDepth}
	_, _ = s.value(s.skipSpace(0), 0)
	return s.invalidText > 0
}

// InvalidKeys counts the invalid characters in the keys of the object raw
// (its own keys, not those of nested objects).
func InvalidKeys(raw []byte) int {
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

// RepairJSON returns the JSON text raw with every string that holds invalid
// text re-encoded with U+FFFD (escaped as \ufffd) for each bad byte and
// each lone surrogate, and the number of replacements. raw itself is
// returned when there is none. raw must be valid JSON text to the scanner.
func RepairJSON(raw []byte) ([]byte, int) {
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
			out = AppendString(out, AliasString(decoded))
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

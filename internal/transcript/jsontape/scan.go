package jsontape

import "fmt"

// scanner validates JSON text and finds the end of each value without building
// any tree. It is the whole of the codec's parsing: decoding a job is one pass
// of the scanner over the input, which also records each message's members
// and content blocks on a Tape; only values a rule looks deeper into (a tool
// input, a nested result) are scanned again.
type scanner struct {
	data     []byte
	maxDepth int
	// invalidText counts what the scanner saw of invalid text: each string
	// with invalid UTF-8, each lone UTF-16 surrogate escape. They are accepted (a tool that printed a
	// binary file must not cost the whole session) and repaired by the
	// text-repair rule; see HasInvalidText.
	invalidText int
	// escaped is set by str when the string it stepped over holds an
	// escape: the tape records it, so a reader of a plain string never
	// looks for a backslash.
	escaped bool
	// blockCache holds the structural index of the block of the input read
	// last (index_simd.go; empty in a build without vectors).
	blockCache //lint:ignore U1000 a build without vectors (run.go) has an empty one that nothing reads
}

// syntaxError is a JSON syntax error at a byte offset of the scanned text.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.offset, e.msg) }

// depthError reports JSON nested deeper than the configured limit.
type depthError struct {
	offset, limit int
}

func (e *depthError) Error() string {
	return fmt.Sprintf("offset %d: nesting deeper than %d levels", e.offset, e.limit)
}

// isSpace reports whether c is JSON white space. Most bytes it is asked
// about are not, and are above the space: one compare tells.
func isSpace(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r') }

// skipSpace returns the index of the first non-space byte at or after i.
func (s *scanner) skipSpace(i int) int {
	for i < len(s.data) && isSpace(s.data[i]) {
		i++
	}
	return i
}

// errAt builds the syntax error at i. A message without arguments is used
// as it is: rules probe absent members with ParseObject (usage, cost), and
// formatting each "expected a JSON object" cost more than the probe.
func (s *scanner) errAt(i int, format string, args ...any) error {
	if len(args) == 0 {
		return &syntaxError{offset: i, msg: format}
	}
	return &syntaxError{offset: i, msg: fmt.Sprintf(format, args...)}
}

// value validates the value starting at i (no leading space) and returns the
// index just past it. depth is the nesting depth of the value's container.
func (s *scanner) value(i, depth int) (int, error) {
	if i >= len(s.data) {
		return i, s.errAt(i, "unexpected end of input")
	}
	switch c := s.data[i]; {
	case c == '{':
		return s.object(i, depth+1)
	case c == '[':
		return s.array(i, depth+1)
	case c == '"':
		return s.str(i)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number(i)
	default:
		return i, s.errAt(i, "invalid character %q looking for a value", c)
	}
}

func (s *scanner) literal(i int, lit string) (int, error) {
	if len(s.data)-i < len(lit) || string(s.data[i:i+len(lit)]) != lit {
		return i, s.errAt(i, "invalid literal, expected %s", lit)
	}
	return i + len(lit), nil
}

func (s *scanner) object(i, depth int) (int, error) {
	if depth > s.maxDepth {
		return i, &depthError{offset: i, limit: s.maxDepth}
	}
	i = s.skipSpace(i + 1)
	if i < len(s.data) && s.data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(s.data) || s.data[i] != '"' {
			return i, s.errAt(i, "expected a string object key")
		}
		end, err := s.str(i)
		if err != nil {
			return end, err
		}
		i = s.skipSpace(end)
		if i >= len(s.data) || s.data[i] != ':' {
			return i, s.errAt(i, "expected ':' after object key")
		}
		i = s.skipSpace(i + 1)
		if i, err = s.value(i, depth); err != nil {
			return i, err
		}
		i = s.skipSpace(i)
		if i >= len(s.data) {
			return i, s.errAt(i, "unexpected end of input in object")
		}
		switch s.data[i] {
		case ',':
			i = s.skipSpace(i + 1)
		case '}':
			return i + 1, nil
		default:
			return i, s.errAt(i, "expected ',' or '}' in object")
		}
	}
}

func (s *scanner) array(i, depth int) (int, error) {
	if depth > s.maxDepth {
		return i, &depthError{offset: i, limit: s.maxDepth}
	}
	i = s.skipSpace(i + 1)
	if i < len(s.data) && s.data[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if i, err = s.value(i, depth); err != nil {
			return i, err
		}
		i = s.skipSpace(i)
		if i >= len(s.data) {
			return i, s.errAt(i, "unexpected end of input in array")
		}
		switch s.data[i] {
		case ',':
			i = s.skipSpace(i + 1)
		case ']':
			return i + 1, nil
		default:
			return i, s.errAt(i, "expected ',' or ']' in array")
		}
	}
}

// plainStringByte marks the bytes a string can hold with no further check:
// printable ASCII other than the quote and the backslash.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str validates the string starting at the quote at i and returns the index
// past its closing quote. A string with invalid UTF-8 or a lone surrogate
// escape is valid JSON text to this scanner; it is counted in invalidText.
// On vectors a string is read from the structural index (strCached, or
// strBlocks when it does not end plain in the block read last); one
// that holds an error or a surrogate escape, and every string of the
// scalar scan, is read here: plain bytes are stepped over a word or a
// vector at a time (plainRun), and UTF-8 is validated as it is met
// (utf8Run), so no string is read twice.
func (s *scanner) str(i int) (int, error) {
	if vectorScan {
		if end, ok := s.strCached(i); ok {
			return end, nil
		}
		if end, ok := s.strBlocks(i); ok {
			return end, nil
		}
	}
	start := i
	i++
	badUTF8 := false
	s.escaped = false
	data := s.data
	for i < len(data) {
		i = plainRun(data, i)
		if i >= len(data) {
			break
		}
		c := data[i]
		switch {
		case c == '"':
			if badUTF8 {
				s.invalidText++
			}
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(s.data) {
				return i, s.errAt(i, "unexpected end of input in string escape")
			}
			s.escaped = true
			switch s.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s.data) || !isHex4(s.data[i+2:i+6]) {
					return i, s.errAt(i, "invalid \\u escape in string")
				}
				if c := s.data[i+2]; c == 'd' || c == 'D' {
					i += s.surrogate(i) // rare: kept out of line so the loop stays tight
					continue
				}
				i += 6
			default:
				return i, s.errAt(i, "invalid escape %q in string", s.data[i+1])
			}
		case c < 0x20:
			return i, s.errAt(i, "control character 0x%02x in string", c)
		default: // c >= 0x80: a multi-byte sequence, checked where it stands
			var bad bool
			i, bad = utf8Run(data, i)
			badUTF8 = badUTF8 || bad
		}
	}
	return i, s.errAt(start, "unterminated string")
}

// surrogate steps over the \uDXXX escape at i, and counts a lone surrogate
// in invalidText.
//
//go:noinline
func (s *scanner) surrogate(i int) int {
	n := surrogateEscape(s.data, i)
	if n == 0 {
		s.invalidText++
		return 6
	}
	return n
}

// surrogateEscape looks at the valid \uXXXX escape at i: it returns 6 when
// it is not a surrogate, 12 when it is a high surrogate followed by an
// escaped low one, and 0 for a lone surrogate.
func surrogateEscape(data []byte, i int) int {
	if c := data[i+2]; c != 'd' && c != 'D' {
		return 6
	}
	switch data[i+3] {
	case '8', '9', 'a', 'b', 'A', 'B': // high surrogate: a low one must follow
		j := i + 6
		if j+6 <= len(data) && data[j] == '\\' && data[j+1] == 'u' && isHex4(data[j+2:j+6]) &&
			(data[j+2] == 'd' || data[j+2] == 'D') && isLowSurrogateDigit(data[j+3]) {
			return 12
		}
		return 0
	case 'c', 'd', 'e', 'f', 'C', 'D', 'E', 'F':
		return 0
	}
	return 6
}

func isLowSurrogateDigit(c byte) bool {
	return c >= 'c' && c <= 'f' || c >= 'C' && c <= 'F'
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (s *scanner) number(i int) (int, error) {
	data := s.data
	start := i
	if data[i] == '-' {
		i++
	}
	if i < len(data) && data[i] == '0' {
		i++
	} else if j := digits(data, i); j == i {
		return i, s.errAt(start, "invalid number")
	} else {
		i = j
	}
	if i < len(data) && data[i] == '.' {
		i++
		j := digits(data, i)
		if j == i {
			return i, s.errAt(start, "invalid number")
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return i, s.errAt(start, "invalid number")
		}
		i = j
	}
	return i, nil
}

// digits returns the index of the first byte at or after i that is not a
// decimal digit.
func digits(data []byte, i int) int {
	for i < len(data) && data[i]-'0' < 10 {
		i++
	}
	return i
}

// Valid reports whether data is exactly one JSON value (surrounding space
// allowed) nested no deeper than maxDepth.
func Valid(data []byte, maxDepth int) error {
	s := scanner{data: data, maxDepth: maxDepth}
	i := s.skipSpace(0)
	end, err := s.value(i, 0)
	if err != nil {
		return err
	}
	if end = s.skipSpace(end); end != len(data) {
		return s.errAt(end, "invalid character %q after top-level value", data[end])
	}
	return nil
}

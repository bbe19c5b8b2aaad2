package wire

import (
	"bytes"
	"strings"
	"unsafe"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// The parsers split the body's nested values without validating them: the
// body is valid JSON (the job decode validated every byte of it), so a
// split only has to find where each member or element ends. A naive split
// finds that end by scanning the value, and the split of the value scans
// it again, once per level of nesting: a tool result's text, five levels
// down, would be read six times. Instead one pass over the body (index)
// records where every object, array and long string ends, and the splits
// skip such a value by looking its end up, so every byte of the body is
// scanned once however deep it lies. Strings are skipped with
// bytes.IndexByte (most of a body is text and base64). On anything that is
// not an object or an array the splits return nothing.

// longString is the length from which index records a string: a shorter
// one (keys, types, ids) is cheaper to skip again than to look up.
const longString = 48

// splitter splits the values of one body: the ends index recorded, and
// the slabs the members and elements of the splits are allocated from
// (a few allocations per body, not one per object).
type splitter struct {
	body []byte
	// starts and ends are the spans, in body, of its objects, arrays and
	// long strings, in the order they open (so starts is sorted).
	starts, ends []uint32
	at           int // the entry the last lookup found: the next is near it
	fields       []transcript.Field
	elems        [][]byte
	// protoNames: the body is protobuf JSON (Gemini), whose parsers take a
	// field by its lowerCamelCase JSON name or by its proto name
	// (function_call, inline_data, mime_type, ...): object gives the
	// members their JSON names (camelKey), so one lookup reads both.
	protoNames bool
	camel      map[string]string // proto name → JSON name, for this body
}

// index records the ends of body's objects, arrays and long strings; body
// is valid JSON.
func (s *splitter) index(body []byte) {
	s.body = body
	s.starts = make([]uint32, 0, len(body)/256+16)
	s.ends = make([]uint32, 0, len(body)/256+16)
	var open []int // the entries of the containers not closed yet
	for i := 0; i < len(body); {
		switch body[i] {
		case '"':
			end := skipString(body, i)
			if end-i >= longString {
				s.starts, s.ends = append(s.starts, uint32(i)), append(s.ends, uint32(end))
			}
			i = end
			continue
		case '{', '[':
			open = append(open, len(s.starts))
			s.starts, s.ends = append(s.starts, uint32(i)), append(s.ends, 0)
		case '}', ']':
			if n := len(open); n > 0 {
				s.ends[open[n-1]] = uint32(i + 1)
				open = open[:n-1]
			}
		}
		i++
	}
}

// end returns the index in raw past the value that starts at raw[i], when
// index recorded it; ok is false for a value it did not record (a short
// string, a scalar, bytes that are not the body's).
func (s *splitter) end(raw []byte, i int) (int, bool) {
	if len(s.body) == 0 {
		return 0, false
	}
	off := uintptr(unsafe.Pointer(&raw[i])) - uintptr(unsafe.Pointer(unsafe.SliceData(s.body)))
	if off >= uintptr(len(s.body)) {
		return 0, false
	}
	k, ok := s.find(uint32(off))
	if !ok || s.ends[k] == 0 {
		return 0, false
	}
	return i + int(s.ends[k]-uint32(off)), true
}

// find returns the entry that starts at off: a gallop forward from the
// last one found (the splits mostly look values up in the order they
// stand), else a binary search.
func (s *splitter) find(off uint32) (int, bool) {
	lo, hi := 0, len(s.starts)
	if a := s.at; a < hi && s.starts[a] <= off {
		lo = a
		for step := 1; ; step *= 2 {
			if lo+step >= hi || s.starts[lo+step] > off {
				hi = min(lo+step+1, hi)
				break
			}
			lo += step
		}
	}
	for lo < hi { // the first entry that starts at or after off
		mid := int(uint(lo+hi) >> 1)
		if s.starts[mid] < off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(s.starts) && s.starts[lo] == off {
		s.at = lo
		return lo, true
	}
	return 0, false
}

// skipValue returns the index past the value that starts at raw[i].
func (s *splitter) skipValue(raw []byte, i int) int {
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '"', '{', '[':
		if end, ok := s.end(raw, i); ok && end <= len(raw) {
			return end
		}
	}
	return skipValue(raw, i)
}

// object splits raw, a value of the body, as an object; ok is false when
// raw is not an object. Keys without escapes alias raw (the body is never
// modified while it is parsed).
func (s *splitter) object(raw []byte) (transcript.Object, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return transcript.Object{}, false
	}
	start := len(s.fields)
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kEnd := skipString(raw, i)
		if kEnd-i < 2 {
			break // not JSON: a key that never closes
		}
		key := raw[i+1 : kEnd-1]
		i = skipSpace(raw, kEnd)
		i = skipSpace(raw, min(i+1, len(raw))) // the colon
		vEnd := s.skipValue(raw, i)
		if len(s.fields) == cap(s.fields) {
			s.fields = growSlab(s.fields, start)
			start = 0
		}
		k := keyString(key)
		if s.protoNames {
			k = s.camelKey(k)
		}
		s.fields = append(s.fields, transcript.Field{Key: k, Value: raw[i:vEnd:vEnd]})
		i = skipSpace(raw, vEnd)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	n := len(s.fields)
	return transcript.Object{Fields: s.fields[start:n:n]}, true
}

// array splits raw, a value of the body, as an array; nil when raw is not
// an array.
func (s *splitter) array(raw []byte) [][]byte {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil
	}
	start := len(s.elems)
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		end := s.skipValue(raw, i)
		if end == i {
			break // not JSON: a ',' or '}' where a value belongs
		}
		if len(s.elems) == cap(s.elems) {
			s.elems = growSlab(s.elems, start)
			start = 0
		}
		s.elems = append(s.elems, raw[i:end:end])
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	n := len(s.elems)
	if n == start {
		return [][]byte{}
	}
	return s.elems[start:n:n]
}

// growSlab returns a new slab holding the entries of slab from start (the
// split in progress); the entries before it stay where the splits that
// returned them point.
func growSlab[T any](slab []T, start int) []T {
	n := max(1024, 2*(len(slab)-start))
	return append(make([]T, 0, n), slab[start:]...)
}

// camelKey returns the JSON name of a member's key (jsonName), each name
// of a body converted once.
func (s *splitter) camelKey(k string) string {
	if strings.IndexByte(k, '_') < 0 {
		return k
	}
	if c, ok := s.camel[k]; ok {
		return c
	}
	if s.camel == nil {
		s.camel = map[string]string{}
	}
	c := jsonName(k)
	s.camel[k] = c
	return c
}

// jsonName returns the lowerCamelCase JSON name of a proto field name, the
// proto3 JSON mapping's rule: each '_' is dropped and the letter after it
// upper-cased (function_call → functionCall, thought_signature →
// thoughtSignature). A name without '_' is returned as it is.
func jsonName(k string) string {
	if strings.IndexByte(k, '_') < 0 {
		return k
	}
	b := make([]byte, 0, len(k))
	up := false
	for i := 0; i < len(k); i++ {
		switch c := k[i]; {
		case c == '_':
			up = len(b) > 0
		case up && 'a' <= c && c <= 'z':
			b, up = append(b, c-'a'+'A'), false
		default:
			b, up = append(b, c), false
		}
	}
	return string(b)
}

// keyString is a member's key: its bytes aliased when it has no escape,
// else decoded.
func keyString(key []byte) string {
	if len(key) == 0 {
		return ""
	}
	if bytes.IndexByte(key, '\\') < 0 {
		return unsafe.String(&key[0], len(key))
	}
	quoted := make([]byte, 0, len(key)+2)
	quoted = append(append(append(quoted, '"'), key...), '"')
	s, _ := transcript.UnquoteBytes(quoted)
	return string(s)
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index past the string that opens at i.
func skipString(raw []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(raw[j:], '"')
		if k < 0 {
			return len(raw)
		}
		j += k
		backslashes := 0
		for b := j - 1; b > i && raw[b] == '\\'; b-- {
			backslashes++
		}
		j++
		if backslashes%2 == 0 {
			return j
		}
	}
}

// skipValue returns the index past the value that starts at i, scanning
// it (a value the index did not record).
func skipValue(raw []byte, i int) int {
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for i < len(raw) {
			switch raw[i] {
			case '"':
				i = skipString(raw, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(raw) && raw[i] != ',' && raw[i] != '}' && raw[i] != ']' && raw[i] != ' ' && raw[i] != '\n' && raw[i] != '\t' && raw[i] != '\r' {
		i++
	}
	return i
}

package wire

import (
	"bytes"
	"unsafe"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// The parsers split the body's nested values without validating them
// again: Parse validates the whole body once (transcript.ParseObject), so
// every value below it is known to be well-formed JSON, and a split only
// has to find where each member or element ends. Strings are skipped with
// bytes.IndexByte (most of a body is text and base64), so the nested splits
// cost a fraction of the validating scan. On anything that is not an object
// or an array the splits return nothing, as transcript's would fail.

// splitObject splits a validated JSON object into its members; ok is false
// when raw is not an object. Keys without escapes alias raw (the body is
// never modified while it is parsed).
func splitObject(raw []byte) (transcript.Object, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return transcript.Object{}, false
	}
	o := transcript.Object{Fields: make([]transcript.Field, 0, 6)}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kEnd := skipString(raw, i)
		key := raw[i+1 : kEnd-1]
		i = skipSpace(raw, kEnd)
		i = skipSpace(raw, i+1) // the colon
		vEnd := skipValue(raw, i)
		o.Fields = append(o.Fields, transcript.Field{Key: keyString(key), Value: raw[i:vEnd:vEnd]})
		i = skipSpace(raw, vEnd)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return o, true
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

// splitArray splits a validated JSON array into its elements; nil when raw
// is not an array.
func splitArray(raw []byte) [][]byte {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil
	}
	elems := make([][]byte, 0, 4)
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		end := skipValue(raw, i)
		elems = append(elems, raw[i:end:end])
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return elems
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

// skipValue returns the index past the value that starts at i.
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

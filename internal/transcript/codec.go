package transcript

import (
	"bytes"
	"encoding/json"

	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// Parallel says how one large job's decode or encode is split
// (jsontape.Parallel).
type Parallel = jsontape.Parallel

// ParseArray splits a JSON array into its elements. The elements alias raw.
func ParseArray(raw []byte) ([][]byte, error) { return jsontape.ParseArray(raw) }

// Valid reports whether data is exactly one JSON value (surrounding space
// allowed) nested no deeper than maxDepth.
func Valid(data []byte, maxDepth int) error { return jsontape.Valid(data, maxDepth) }

// AppendString appends s as a JSON string, escaping only what JSON
// requires (jsontape.AppendString).
func AppendString(dst []byte, s string) []byte { return jsontape.AppendString(dst, s) }

// UnquoteBytes decodes a raw JSON string value, returning a sub-slice of raw
// when it has no escapes (so large base64 payloads are not copied).
func UnquoteBytes(raw []byte) ([]byte, bool) { return jsontape.UnquoteBytes(raw) }

// Hex4 reads the four hexadecimal digits at b[at:], the XXXX of a \uXXXX
// escape in JSON text.
func Hex4(b []byte, at int) (rune, bool) { return jsontape.Hex4(b, at) }

// AppendMarshalString appends s as Marshal writes it: quoted as it is when
// s is plain (printable ASCII without a quote or a backslash), else by
// Marshal itself, so no escaping rule of encoding/json is restated.
func AppendMarshalString(dst []byte, s string) []byte {
	if PlainString(s) {
		return append(append(append(dst, '"'), s...), '"')
	}
	b, _ := Marshal(s) // a string always marshals
	return append(dst, b...)
}

// PlainString reports whether s is printable ASCII without a quote or a
// backslash: what encoding/json writes as it is between its quotes.
func PlainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Marshal encodes a Go value for use as a raw member value: encoding/json
// without HTML escaping and without the trailing newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

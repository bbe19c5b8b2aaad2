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

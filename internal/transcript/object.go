package transcript

import (
	"bytes"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// Field is one member of a JSON object: its key and its value as raw JSON
// bytes. A value read from the input is a sub-slice of the input buffer; it is
// never copied until a rule replaces it.
type Field struct {
	Key   string
	Value []byte
}

// Object is a JSON object kept as its members in their original order, each
// value as raw JSON. Unknown members survive a round trip unchanged, and an
// Object that no one modified encodes to the same members it was parsed from.
type Object struct {
	Fields []Field
}

// ParseObject splits a JSON object into its members. The values alias raw.
func ParseObject(raw []byte) (Object, error) { return parseObject(raw, 1<<30) }

// parseObject is ParseObject for text not yet validated: it also refuses
// nesting deeper than maxDepth.
func parseObject(raw []byte, maxDepth int) (Object, error) {
	fields := make([]Field, 0, 8) // a message or block has a handful of members: one allocation
	err := jsontape.EachMember(raw, maxDepth, func(key string, value []byte) {
		fields = append(fields, Field{Key: key, Value: value})
	})
	if err != nil {
		return Object{}, err
	}
	return Object{Fields: fields}, nil
}

// EachMember validates raw as one JSON object (ParseObject) and calls f
// with each member's key and raw value, a sub-slice of raw, in order,
// without building the members: a rule that only reads a nested object's
// members reads them for no allocation.
func EachMember(raw []byte, f func(key string, value []byte)) error {
	return jsontape.EachMember(raw, 1<<30, f)
}

// index returns the position of key, or -1.
//
// Member names are short and often of one length ("role", "type", "text"),
// so the first byte is compared before the whole name.
func (o *Object) index(key string) int {
	if key == "" {
		for i := range o.Fields {
			if o.Fields[i].Key == "" {
				return i
			}
		}
		return -1
	}
	first := key[0]
	for i := range o.Fields {
		if k := o.Fields[i].Key; len(k) == len(key) && k[0] == first && k == key {
			return i
		}
	}
	return -1
}

// Get returns the raw value of key.
func (o *Object) Get(key string) ([]byte, bool) {
	if i := o.index(key); i >= 0 {
		return o.Fields[i].Value, true
	}
	return nil, false
}

// Has reports whether key is present (with any value, null included).
func (o *Object) Has(key string) bool { return o.index(key) >= 0 }

// String returns the value of key when it is a JSON string.
func (o *Object) String(key string) (string, bool) {
	v, ok := o.Get(key)
	if !ok || len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return jsontape.DecodeString(v)
}

// Bool returns the value of key when it is a JSON boolean.
func (o *Object) Bool(key string) (value, ok bool) {
	v, _ := o.Get(key)
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Number returns the value of key when it is a JSON number.
func (o *Object) Number(key string) (float64, bool) {
	v, ok := o.Get(key)
	if !ok || len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// IsNull reports whether key is absent or null.
func (o *Object) IsNull(key string) bool {
	v, ok := o.Get(key)
	return !ok || string(v) == "null"
}

// Set replaces the value of key, or appends the member when it is absent. It
// reports whether anything changed: setting a value to the bytes it already
// has is not a change.
func (o *Object) Set(key string, raw []byte) bool {
	if i := o.index(key); i >= 0 {
		if bytes.Equal(o.Fields[i].Value, raw) {
			return false
		}
		o.Fields[i].Value = raw
		return true
	}
	o.Fields = append(o.Fields, Field{Key: key, Value: raw})
	return true
}

// SetString sets key to the JSON string s.
func (o *Object) SetString(key, s string) bool { return o.Set(key, AppendString(nil, s)) }

// Delete removes key and reports whether it was present.
func (o *Object) Delete(key string) bool {
	i := o.index(key)
	if i < 0 {
		return false
	}
	o.Fields = append(o.Fields[:i:i], o.Fields[i+1:]...)
	return true
}

// AppendJSON appends the object's compact encoding: members in order, values
// as their raw bytes.
func (o *Object) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	for i, f := range o.Fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, f.Key)
		dst = append(dst, ':')
		dst = append(dst, f.Value...)
	}
	return append(dst, '}')
}

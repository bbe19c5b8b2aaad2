package legacy

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
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

// unlimitedDepth is used when re-scanning text that was already validated
// against the configured depth limit.
const unlimitedDepth = 1 << 30

// ParseObject splits a JSON object into its members. The values alias raw.
func ParseObject(raw []byte) (Object, error) {
	obj, _, err := parseObject(raw, unlimitedDepth, "", Parallel{})
	return obj, err
}

// parseObject splits and validates an object in one pass, with a nesting
// limit, and rejects anything but space after it. When splitKey names a
// member whose value is an array, that array's elements are returned too as
// messages, found and split in the same pass (a job's message list is
// scanned only once; see tape), each marked when it holds invalid text;
// par may split that array's parse (messageArrayInParts).
func parseObject(raw []byte, maxDepth int, splitKey string, par Parallel) (Object, split, error) {
	s := scanner{data: raw, maxDepth: maxDepth, parallel: par}
	obj, msgs, err := s.object1(splitKey)
	return obj, split{msgs: msgs, invalidText: s.invalidText > 0}, err
}

// split is the message array parseObject split out of an object, and
// whether it found invalid text.
type split struct {
	msgs        []*Message
	invalidText bool // some string of the object holds invalid text
}

// object1 is parseObject's pass over s.data.
func (s *scanner) object1(splitKey string) (Object, []*Message, error) {
	raw := s.data
	i := s.skipSpace(0)
	if i >= len(raw) || raw[i] != '{' {
		return Object{}, nil, s.errAt(i, "expected a JSON object")
	}
	fields := make([]Field, 0, 8) // a message or block has a handful of members: one allocation
	var msgs []*Message
	i = s.skipSpace(i + 1)
	if i < len(raw) && raw[i] == '}' {
		return Object{Fields: fields}, nil, s.trailing(i + 1)
	}
	for {
		key, vstart, err := s.memberKey(i)
		if err != nil {
			return Object{}, nil, err
		}
		var vend int
		if splitKey != "" && key == splitKey && vstart < len(raw) && raw[vstart] == '[' {
			msgs, vend, err = s.messageArray(vstart, 2)
		} else {
			vend, err = s.value(vstart, 1)
		}
		if err != nil {
			return Object{}, nil, err
		}
		fields = append(fields, Field{Key: key, Value: raw[vstart:vend:vend]})
		var closed bool
		if i, closed, err = s.nextMember(vend); err != nil {
			return Object{}, nil, err
		} else if closed {
			return Object{Fields: fields}, msgs, s.trailing(i)
		}
	}
}

// trailing accepts only white space from i to the end.
func (s *scanner) trailing(i int) error {
	if end := s.skipSpace(i); end != len(s.data) {
		return s.errAt(end, "invalid character %q after the object", s.data[end])
	}
	return nil
}

// ParseArray splits a JSON array into its elements. The elements alias raw.
func ParseArray(raw []byte) ([][]byte, error) {
	s := scanner{data: raw, maxDepth: unlimitedDepth}
	i := s.skipSpace(0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, s.errAt(i, "expected a JSON array")
	}
	elems, _, err := s.splitArray(i, 1)
	return elems, err
}

// splitArray validates the array at i (nesting depth depth) and returns its
// elements and the index past it.
func (s *scanner) splitArray(i, depth int) ([][]byte, int, error) {
	if depth > s.maxDepth {
		return nil, i, &depthError{offset: i, limit: s.maxDepth}
	}
	raw := s.data
	elems := make([][]byte, 0, 4) // content arrays are short; long arrays grow as usual
	i = s.skipSpace(i + 1)
	if i < len(raw) && raw[i] == ']' {
		return elems, i + 1, nil
	}
	for {
		end, err := s.value(i, depth)
		if err != nil {
			return nil, end, err
		}
		elems = append(elems, raw[i:end:end])
		var closed bool
		if i, closed, err = s.nextElement(end); err != nil || closed {
			return elems, i, err
		}
	}
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
	return decodeString(v)
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

// decodeString decodes a raw JSON string (quotes included). Strings without
// escapes are converted directly; escaped ones are unescaped in one pass
// (invalid surrogates become U+FFFD, as encoding/json does).
func decodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 {
		return aliasString(body), true
	}
	out, ok := unescape(make([]byte, 0, len(body)), body, i)
	return aliasString(out), ok
}

// aliasString views b as a string without copying. It is safe here because
// no byte slice this package holds is ever written after it is created: the
// input buffer is read-only by contract (DecodeJob), values are replaced,
// never modified in place, and unescaped copies are not kept elsewhere.
// Rules read roles, types and ids of every message many times; copying each
// one would cost an allocation per read.
func aliasString(b []byte) string {
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

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. It escapes only what JSON
// requires (quote, backslash, control characters); HTML characters are left
// as they are, and invalid UTF-8 becomes U+FFFD, as encoding/json does.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
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

package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Options are the settings a job's options set: overlays of the two
// sections and the request options. The JSON keys of Request are read at
// the top of options (Request is embedded), so the type's name is the
// member's, and encoding/json's errors name a field as the job's
// options ("Go struct field Options.now_ms").
type Options struct {
	Images  Overlay[Images]  `json:"-"` // options.images and the image aliases
	Pruning Overlay[Pruning] `json:"-"` // options.pruning (ttl as ttl_ms)
	Request
}

// DecodeOptions decodes the settings members of a job's options: raw is
// one JSON object of them, as transcript.Options.Settings keeps them (nil
// is none). images and pruning are read with DecodeOption, the names of
// ImageAliases onto images (after it, so a setting sent both ways is
// refused whatever the order of the keys), and every other key must be one
// of Request's json names, exactly (as a section's keys: "NOW_MS" is no
// option), decoded with encoding/json; context_window_tokens must be at
// least 1. Of several bad request keys the first in the job's order is
// reported. An error is a *FieldError naming the option as the
// job spelt it: "options.images.max_frames", or "options" for a key no
// setting has (`unknown field "now"`). Range rules of the sections are
// Validate's, once the overlays are resolved.
func DecodeOptions(raw []byte) (Options, error) {
	var o Options
	if len(raw) == 0 || isNull(raw) {
		return o, nil
	}
	members, err := objectMembers(raw)
	if err != nil {
		return o, &FieldError{Name: "options", Msg: "must be an object"}
	}
	var rest, aliases []member
	for _, m := range members {
		switch m.key {
		case "images":
			o.Images, err = DecodeOption[Images](m.value, "options.images")
		case "pruning":
			o.Pruning, err = DecodeOption[Pruning](m.value, "options.pruning")
		default:
			if _, ok := ImageAliases[m.key]; ok {
				aliases = append(aliases, m)
			} else {
				rest = append(rest, m)
			}
		}
		if err != nil {
			return o, err
		}
	}
	for _, m := range aliases {
		if err := o.Images.AddAlias(ImageAliases[m.key], "options."+m.key, m.value); err != nil {
			return o, err
		}
	}
	// The request keys, with encoding/json, strictly: the first error in
	// the job's order is the one reported, a key no field has as
	// encoding/json's Decoder with DisallowUnknownFields words it.
	known := len(rest)
	for i, m := range rest {
		if !requestKeys[m.key] {
			known = i
			break
		}
	}
	if known > 0 {
		obj := raw // every member is a request key: decoded as sent
		if known < len(members) {
			obj = objectOf(rest[:known])
		}
		if err := json.Unmarshal(obj, &o); err != nil {
			return o, &FieldError{Name: "options", Msg: strings.TrimPrefix(err.Error(), "json: ")}
		}
	}
	if known < len(rest) {
		return o, &FieldError{Name: "options", Msg: fmt.Sprintf("unknown field %q", rest[known].key)}
	}
	if n := o.ContextWindowTokens; n != nil && *n < 1 {
		return o, &FieldError{Name: "options.context_window_tokens", Msg: fmt.Sprintf("must be at least 1, got %d", *n)}
	}
	return o, nil
}

// requestKeys are the JSON names of Request's fields, the keys of options
// besides the sections and the image aliases.
var requestKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[Request]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
}()

// member is one key of a JSON object and its raw value.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers lists the members of the JSON object raw in its order,
// their values aliasing raw.
func objectMembers(raw []byte) ([]member, error) {
	start := skipSpace(raw, 0)
	if start == len(raw) || raw[start] != '{' || !json.Valid(raw) {
		return nil, fmt.Errorf("not an object")
	}
	// raw is valid JSON, so every index below is in range and each key a
	// string.
	var out []member
	for i := skipSpace(raw, start+1); raw[i] != '}'; {
		end := stringEnd(raw, i)
		var m member
		if k := raw[i+1 : end-1]; bytes.IndexByte(k, '\\') < 0 && utf8.Valid(k) {
			m.key = string(raw[i+1 : end-1])
		} else if err := json.Unmarshal(raw[i:end], &m.key); err != nil {
			return nil, err
		}
		i = skipSpace(raw, skipSpace(raw, end)+1) // past the colon
		end = valueEnd(raw, i)
		m.value = raw[i:end]
		out = append(out, m)
		if i = skipSpace(raw, end); raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return out, nil
}

// skipSpace is the index of the first byte at or after i that is not JSON
// white space.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index just past the JSON string that starts at i.
func stringEnd(raw []byte, i int) int {
	for i++; raw[i] != '"'; i++ {
		if raw[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// valueEnd is the index just past the JSON value that starts at i.
func valueEnd(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return stringEnd(raw, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch raw[i] {
			case '"':
				i = stringEnd(raw, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	default:
		for i < len(raw) && strings.IndexByte(", \t\n\r}]", raw[i]) < 0 {
			i++
		}
		return i
	}
}

// objectOf is the JSON object of members.
func objectOf(members []member) []byte {
	obj := []byte{'{'}
	for i, m := range members {
		if i > 0 {
			obj = append(obj, ',')
		}
		k, _ := json.Marshal(m.key) // a string always marshals
		obj = append(append(append(obj, k...), ':'), m.value...)
	}
	return append(obj, '}')
}

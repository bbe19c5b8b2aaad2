package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// Options are the settings a job's options set: overlays of the three
// sections and the request options. The JSON keys of Request are read at
// the top of options (Request is embedded), so the type's name is the
// member's, and encoding/json's errors name a field as the job's
// options ("Go struct field Options.now_ms").
type Options struct {
	Images  Overlay[Images]  `json:"-"` // options.images and the image aliases
	Pruning Overlay[Pruning] `json:"-"` // options.pruning (ttl as ttl_ms)
	Context Overlay[Context] `json:"-"` // options.context and the context aliases
	Request
}

// DecodeOptions decodes the settings members of a job's options: raw is
// one JSON object of them, as transcript.Options.Settings keeps them (nil
// is none). images, pruning and context are read with DecodeOption, the
// names of ImageAliases onto images and of ContextAliases onto context
// (after it, so a setting sent both ways is refused whatever the order of
// the keys), and every other key must be one
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
	var buf, restBuf [8]member // a job's options are a few members: on the stack
	members, err := objectMembers(buf[:0], raw)
	if err != nil {
		return o, &FieldError{Name: "options", Msg: "must be an object"}
	}
	rest := restBuf[:0]
	var aliases, contextAliases []member
	for _, m := range members {
		switch m.key {
		case "images":
			o.Images, err = DecodeOption[Images](m.value, "options.images")
		case "pruning":
			o.Pruning, err = DecodeOption[Pruning](m.value, "options.pruning")
		case "context":
			o.Context, err = DecodeOption[Context](m.value, "options.context")
		default:
			if _, ok := ImageAliases[m.key]; ok {
				aliases = append(aliases, m)
			} else if _, ok := ContextAliases[m.key]; ok {
				contextAliases = append(contextAliases, m)
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
	for _, m := range contextAliases {
		if err := o.Context.AddAlias(ContextAliases[m.key], "options."+m.key, m.value); err != nil {
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
	if known > 0 && !decodeScalars(rest[:known], &o.Request) {
		obj := raw // every member is a request key: decoded as sent
		if known < len(members) {
			obj = objectOf(rest[:known])
		}
		dec := new(o) // decoded on the heap, so that o, which most jobs never hand to encoding/json, stays on the stack
		err := json.Unmarshal(obj, dec)
		if o = *dec; err != nil {
			return o, requestError(rest[:known], err)
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

// requestError words the error encoding/json gave for the request members
// as the sections word theirs: the first member, in the job's order, whose
// value its field's type cannot hold, "options.now_ms: must be an integer,
// got "x"". encoding/json's own text names Go types, and changed with the
// implementation behind it (Go 1.27 runs encoding/json on v2's: "Go struct
// field Options.now_ms" where Go 1.26 said "Options.Request.now_ms"); it is
// kept only for an error no single member explains.
func requestError(members []member, err error) *FieldError {
	t := reflect.TypeFor[Request]()
	for _, m := range members {
		f, _ := fieldByName(t, "json", m.key)
		if json.Unmarshal(m.value, reflect.New(f.Type).Interface()) != nil {
			return typeMismatch("options."+m.key, f.Type, m.value)
		}
	}
	return &FieldError{Name: "options", Msg: strings.TrimPrefix(err.Error(), "json: ")}
}

// decodeScalars decodes request members that are each a plain integer
// (no sign but '-', no fraction or exponent, at most 18 digits) or true or
// false, under keys each met once, into r as encoding/json would, and
// reports whether it did: a small job's options ({"now_ms":...}) then cost
// no reflection. Any other member leaves r as it was and returns false, for
// encoding/json to decode (and to word its error).
func decodeScalars(members []member, r *Request) bool {
	var d Request
	for i, m := range members {
		for _, before := range members[:i] {
			if before.key == m.key {
				return false
			}
		}
		v := m.value
		switch m.key {
		case "now_ms", "context_window_tokens":
			n, ok := plainInt(v)
			if !ok {
				return false
			}
			if m.key == "now_ms" {
				d.NowMs = &n
			} else {
				d.ContextWindowTokens = new(int(n))
			}
		case "replay_invalid", "preserve_latest_assistant_thinking", "tools_offered":
			if string(v) != "true" && string(v) != "false" {
				return false
			}
			b := string(v) == "true"
			switch m.key {
			case "replay_invalid":
				d.ReplayInvalid = b
			case "preserve_latest_assistant_thinking":
				d.PreserveLatestAssistantThinking = &b
			default:
				d.ToolsOffered = &b
			}
		default:
			return false
		}
	}
	*r = d
	return true
}

// plainInt is v as an integer when v is a JSON integer of at most 18
// digits without a leading zero: every such value fits an int64.
func plainInt(v []byte) (int64, bool) {
	digits := bytes.TrimPrefix(v, []byte("-"))
	if len(digits) == 0 || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(v) {
		n = -n
	}
	return n, true
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

// objectMembers appends to out the members of the JSON object raw in its order,
// their values aliasing raw (jsontape.EachMember, which also validates it).
func objectMembers(out []member, raw []byte) ([]member, error) {
	err := jsontape.EachMember(raw, maxOptionDepth, func(key string, value []byte) {
		if !utf8.ValidString(key) {
			key = string([]rune(key)) // each invalid byte a U+FFFD, as encoding/json reads it
		}
		out = append(out, member{key: key, value: value})
	})
	if err != nil {
		return nil, fmt.Errorf("not an object: %w", err)
	}
	return out, nil
}

// maxOptionDepth bounds the nesting objectMembers accepts: options reach it
// inside a job the decoder has already held to limits.max_depth.
const maxOptionDepth = 1 << 30

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

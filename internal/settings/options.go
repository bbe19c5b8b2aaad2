package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// of Request's, decoded strictly with encoding/json; context_window_tokens
// must be at least 1. An error is a *FieldError naming the option as the
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
	if len(rest) > 0 {
		dec := json.NewDecoder(bytes.NewReader(objectOf(rest)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			return o, &FieldError{Name: "options", Msg: string(bytes.TrimPrefix([]byte(err.Error()), []byte("json: ")))}
		}
	}
	if n := o.ContextWindowTokens; n != nil && *n < 1 {
		return o, &FieldError{Name: "options.context_window_tokens", Msg: fmt.Sprintf("must be at least 1, got %d", *n)}
	}
	return o, nil
}

// member is one key of a JSON object and its raw value.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers lists the members of the JSON object raw in its order.
func objectMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var m member
		m.key, _ = tok.(string) // a key is a string: Token reports anything else as an error
		if err := dec.Decode(&m.value); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
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

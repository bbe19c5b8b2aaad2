package settings

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Overlay is a partial copy of a section of type T: only the keys a tenant
// (from YAML) or a job (from JSON) sets, laid onto the section's values by
// Resolve. The section's own type names the keys, their YAML and JSON names
// and their types, so no setting is declared twice. A field tagged
// `tenant:"no"` cannot be set by a tenant (package config's checkNode
// refuses it), one tagged `job:"no"` cannot be set by a job (DecodeOption
// refuses it).
type Overlay[T any] struct {
	yaml string // a tenant's keys as YAML, in yaml.v3's own encoding ("" when none)
	keys []key  // every setting the overlay sets, in its source's order
}

// key is one setting an overlay sets.
type key struct {
	path  string // the field's dotted YAML path in the section: "soft_trim.max_chars"
	name  string // a job's spelling of it: "options.pruning.soft_trim.max_chars"; "" from YAML
	index []int  // the field, for reflect.Value.FieldByIndex (a job's)
	value []byte // the job's JSON value
}

// A FieldError is a job option that cannot be decoded: Name is the option
// as the job spelt it ("options.images.max_frames").
type FieldError struct {
	Name string
	Msg  string
}

func (e *FieldError) Error() string { return e.Name + ": " + e.Msg }

// Set reports whether the overlay sets any key.
func (o Overlay[T]) Set() bool { return len(o.keys) > 0 }

// IsZero lets omitempty leave an unset overlay out of printed YAML.
func (o Overlay[T]) IsZero() bool { return !o.Set() }

// SectionType is T, for a checker that walks a YAML node against it.
func (Overlay[T]) SectionType() reflect.Type { return reflect.TypeFor[T]() }

// sets reports whether the overlay sets the field at YAML path, and how
// its source named it.
func (o Overlay[T]) sets(path string) (key, bool) {
	for _, k := range o.keys {
		if k.path == path {
			return k, true
		}
	}
	return key{}, false
}

// OverlayOf builds an overlay from YAML text (tests and tools). It panics
// on text that is not YAML.
func OverlayOf[T any](text string) Overlay[T] {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		panic(err)
	}
	var o Overlay[T]
	if err := o.UnmarshalYAML(doc.Content[0]); err != nil {
		panic(err)
	}
	return o
}

// UnmarshalYAML keeps a tenant's keys (package config has already checked
// them and their values against T) in one encoding, so two overlays that
// set the same values are equal, and notes which settings they set.
func (o *Overlay[T]) UnmarshalYAML(n *yaml.Node) error {
	out, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	*o = Overlay[T]{}
	yamlKeys(n, reflect.TypeFor[T](), "", &o.keys)
	if len(o.keys) > 0 {
		o.yaml = string(out)
	}
	return nil
}

// yamlKeys lists the settings a YAML mapping sets: each key whose field is
// not a section of its own, by its dotted path.
func yamlKeys(n *yaml.Node, t reflect.Type, at string, out *[]key) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		f, ok := fieldByName(t, "yaml", n.Content[i].Value)
		if !ok {
			continue
		}
		path := join(at, n.Content[i].Value)
		if isSection(f.Type) {
			yamlKeys(n.Content[i+1], f.Type, path, out)
			continue
		}
		*out = append(*out, key{path: path})
	}
}

// MarshalYAML writes the keys a tenant set.
func (o Overlay[T]) MarshalYAML() (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(o.yaml), &doc); err != nil {
		return nil, err
	}
	return doc.Content[0], nil
}

// DecodeOption reads a job's options for section T: raw is the JSON value of
// the option named at ("options.pruning"). Every key must name a field of
// T (by its json tag, exactly) that is not tagged `job:"no"`, and every
// value must fit the field; the error names the option. A null value sets
// nothing, as if the key were absent.
func DecodeOption[T any](raw []byte, at string) (Overlay[T], error) {
	var o Overlay[T]
	err := o.decodeJSON(raw, reflect.TypeFor[T](), at, "", nil)
	return o, err
}

// AddAlias sets the field at YAML path from a job option sent under
// another name (see ImageAliases); name is that option ("options.image_max_bytes").
// A path that names no field of T is a bug in the caller: it panics.
func (o *Overlay[T]) AddAlias(path, name string, raw []byte) error {
	t := reflect.TypeFor[T]()
	var index []int
	for part := range strings.SplitSeq(path, ".") {
		f, ok := fieldByName(t, "yaml", part)
		if !ok {
			f, ok = fieldByName(t, "json", part)
		}
		if !ok {
			panic("settings: no field " + path + " in " + t.String())
		}
		index, t = append(index, f.Index...), f.Type
	}
	return o.addJSON(path, name, index, t, raw)
}

func (o *Overlay[T]) decodeJSON(raw []byte, t reflect.Type, name, path string, index []int) error {
	if isNull(raw) {
		return nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return &FieldError{Name: name, Msg: "must be an object"}
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys) // errors and keys in one order, whatever the job's
	for _, k := range keys {
		f, ok := fieldByName(t, "json", k)
		at := name + "." + k
		switch {
		case !ok:
			return &FieldError{Name: at, Msg: "unknown option"}
		case f.Tag.Get("job") == "no":
			return &FieldError{Name: at, Msg: "a worker setting, which a job cannot set"}
		case isSection(f.Type):
			if err := o.decodeJSON(members[k], f.Type, at, join(path, keyPath(f)), append(slices.Clone(index), f.Index...)); err != nil {
				return err
			}
		default:
			if err := o.addJSON(join(path, keyPath(f)), at, append(slices.Clone(index), f.Index...), f.Type, members[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// addJSON checks one leaf value against its field's type and keeps it.
func (o *Overlay[T]) addJSON(path, name string, index []int, t reflect.Type, raw []byte) error {
	if isNull(raw) {
		return nil
	}
	if k, ok := o.sets(path); ok {
		return &FieldError{Name: name, Msg: "set twice (also as " + k.name + ")"}
	}
	if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
		return typeMismatch(name, t, raw)
	}
	o.keys = append(o.keys, key{path: path, name: name, index: index, value: bytes.Clone(raw)})
	return nil
}

// empty reports whether the overlay sets nothing, in YAML or in JSON.
func (o Overlay[T]) empty() bool { return o.yaml == "" && len(o.keys) == 0 }

// applyTo lays the overlay's keys onto v, which holds the values below it;
// the keys it does not set keep them. A list it sets replaces that list
// whole (a new slice: v's may be shared with the layer below).
func (o Overlay[T]) applyTo(v *T) {
	if o.yaml != "" {
		// The keys and values were checked at load (package config), so
		// the decode cannot fail on them.
		_ = yaml.Unmarshal([]byte(o.yaml), v)
		return
	}
	root := reflect.ValueOf(v).Elem()
	for _, k := range o.keys {
		f := root.FieldByIndex(k.index)
		f.SetZero()
		// addJSON decoded the same value into the same type.
		_ = json.Unmarshal(k.value, f.Addr().Interface())
	}
}

// Resolve is the one merge of a section: the configuration's values, then
// a tenant's overlay, then a job's. Lists are never shared with a layer
// that set its own.
func Resolve[T any](defaults T, tenant, job Overlay[T]) T {
	if tenant.empty() && job.empty() {
		return defaults // most jobs: no copy for reflection to take
	}
	v := defaults
	tenant.applyTo(&v)
	job.applyTo(&v)
	return v
}

var durationType = reflect.TypeFor[Duration]()

// isSection reports whether a field of type t holds settings of its own
// (soft_trim, hard_clear, tools) rather than being one.
func isSection(t reflect.Type) bool { return t.Kind() == reflect.Struct && t != durationType }

// fieldByName finds the field of t whose tag (yaml or json) names key.
func fieldByName(t reflect.Type, tag, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get(tag), ","); name == key && name != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// keyPath is a field's key in its section's paths: its YAML name, or for
// a job-only field (yaml:"-") its JSON name.
func keyPath(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		name, _, _ = strings.Cut(f.Tag.Get("json"), ",")
	}
	return name
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// typeMismatch is the error of a job's value raw that option name's type
// t cannot hold (a pointer's, what it points to): "must be an integer,
// got "x"".
func typeMismatch(name string, t reflect.Type, raw []byte) *FieldError {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return &FieldError{Name: name, Msg: "must be " + TypeName(t) + ", got " + shown(raw)}
}

// shown is a job's value as an error quotes it: at most 64 bytes of it.
func shown(raw []byte) string {
	const most = 64
	if len(raw) > most {
		return strings.ToValidUTF8(string(raw[:most]), "") + "..."
	}
	return string(raw)
}

func isNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

// TypeName describes a setting's Go type in words for error messages, as
// a job writes it (a Duration in milliseconds); package config says the
// same of its settings, but for the duration form of YAML.
func TypeName(t reflect.Type) string {
	switch {
	case t == durationType:
		return "an integer number of milliseconds"
	case t.Kind() == reflect.Bool:
		return "a boolean (true or false)"
	case t.Kind() == reflect.Int, t.Kind() == reflect.Int64:
		return "an integer"
	case t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.Slice:
		return "a list of strings"
	case t.Kind() == reflect.String:
		return "a string"
	default:
		return t.String()
	}
}

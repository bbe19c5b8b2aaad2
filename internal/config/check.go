package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hygiene-dev/hygiene/internal/settings"
)

var (
	configType   = reflect.TypeFor[Config]()
	durationType = reflect.TypeFor[time.Duration]()
	// settingsDurationType is a duration of the per-job sections (pruning.ttl).
	settingsDurationType = reflect.TypeFor[settings.Duration]()
)

// isDuration reports whether a setting of type t is written as a duration.
func isDuration(t reflect.Type) bool { return t == durationType || t == settingsDurationType }

// checkNode walks a YAML node against the Go type it will be decoded into
// and reports, with the dotted path and line, the first key that names no
// field and the first scalar that does not fit its field's type.
func checkNode(n *yaml.Node, t reflect.Type, path string) error {
	for n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Tag == "!!null" {
		return nil
	}
	if o, ok := reflect.Zero(t).Interface().(overlayType); ok {
		return checkOverlay(n, o.SectionType(), path)
	}
	switch {
	case t.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s (line %d): must be a mapping of keys", displayPath(path), n.Line)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			f, ok := fieldByTag(t, key.Value)
			if !ok {
				return fmt.Errorf("unknown key %q at line %d", join(path, key.Value), key.Line)
			}
			if err := checkNode(val, f.Type, join(path, key.Value)); err != nil {
				return err
			}
		}
		return nil
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s (line %d): must be a mapping of keys", displayPath(path), n.Line)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkNode(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
		return nil
	default:
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			return fmt.Errorf("%s (line %d): cannot read %q as %s", displayPath(path), n.Line, nodeText(n), typeName(t))
		}
		return nil
	}
}

// checkOverlay checks a tenant's partial section against its type: as
// checkNode does, and a key of a global-only field is refused: one tagged
// `tenant:"no"`, or one the configuration's section of that name has and
// the overlay's type has not (the image pool of ImagesConfig).
func checkOverlay(n *yaml.Node, t reflect.Type, path string) error {
	global, _ := fieldByTag(configType, path[strings.LastIndexByte(path, '.')+1:])
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			f, ok := fieldByTag(t, key.Value)
			inGlobal := false
			if global.Type != nil && global.Type.Kind() == reflect.Struct {
				_, inGlobal = fieldByTag(global.Type, key.Value)
			}
			if ok && f.Tag.Get("tenant") == "no" || !ok && inGlobal {
				return fmt.Errorf("%s at line %d: a global setting, which a tenant cannot override", join(path, key.Value), key.Line)
			}
		}
	}
	return checkNode(n, t, path)
}

// overlayType is what checkNode asks of a field type to check a tenant's
// overlay node against its section (settings.Overlay).
type overlayType interface{ SectionType() reflect.Type }

// fieldByTag finds the struct field whose yaml tag name is key (a field
// tagged yaml:"-", job state, has none), looking into the fields embedded
// inline (ImagesConfig's); the field's Index is from t.
func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if isInline(f) {
			if g, ok := fieldByTag(f.Type, key); ok {
				g.Index = append(slices.Clone(f.Index), g.Index...)
				return g, true
			}
			continue
		}
		if name := yamlName(f); name == key && name != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// yamlName is the key of a field in YAML: its tag up to the first comma.
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

// isInline reports whether f is a struct whose keys YAML reads as its
// parent's (yaml:",inline").
func isInline(f reflect.StructField) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return slices.Contains(strings.Split(opts, ","), "inline")
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func displayPath(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

// nodeText shows a node's value for an error message.
func nodeText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	out, err := yaml.Marshal(n)
	if err != nil {
		return n.Tag
	}
	return strings.TrimSpace(string(out))
}

// typeName describes a setting's Go type in words for error messages; a
// duration is written as a duration string here.
func typeName(t reflect.Type) string {
	if isDuration(t) {
		return "a duration (such as 250ms, 10s or 5m)"
	}
	return settings.TypeName(t)
}

package config

import (
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Overlay is a tenant's partial copy of a section of type T: only the keys
// it sets, decoded onto the global section when the tenant's values are
// resolved. The section's own type names the keys, their YAML names and
// their types, so no setting is declared twice; a field tagged
// `tenant:"no"` is global only and cannot be overridden (checkNode rejects
// it under tenants:).
type Overlay[T any] struct {
	yaml string // the tenant's keys as YAML, in yaml.v3's own encoding ("" when none)
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

// Set reports whether the tenant set any key of the section.
func (o Overlay[T]) Set() bool { return o.yaml != "" }

// IsZero lets omitempty leave an unset overlay out of printed YAML.
func (o Overlay[T]) IsZero() bool { return o.yaml == "" }

// UnmarshalYAML keeps the tenant's keys (checkNode has already checked
// them and their values against T) in one encoding, so two overlays that
// set the same values are equal.
func (o *Overlay[T]) UnmarshalYAML(n *yaml.Node) error {
	out, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	o.yaml = string(out)
	return nil
}

// MarshalYAML writes the keys the tenant set.
func (o Overlay[T]) MarshalYAML() (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(o.yaml), &doc); err != nil {
		return nil, err
	}
	return doc.Content[0], nil
}

// applyTo decodes the tenant's keys onto v, which holds the global values;
// the keys it does not set keep them. A list it sets replaces the global one
// whole.
func (o Overlay[T]) applyTo(v *T) {
	if o.yaml != "" {
		// The keys and values were checked at load (checkNode), so the
		// decode cannot fail on them.
		_ = yaml.Unmarshal([]byte(o.yaml), v)
	}
}

// overlaid is the section type of an Overlay, for checkNode.
func (Overlay[T]) overlaid() reflect.Type { return reflect.TypeFor[T]() }

// overlayType is what checkNode asks of a field type to check an overlay's
// node against its section.
type overlayType interface{ overlaid() reflect.Type }

package settings

import (
	"fmt"
	"strconv"
	"strings"
)

// A Source says which layer of a resolved section Validate reports on, and
// how that layer names a field: the configuration's own section, a
// tenant's overlay, or a job's options.
type Source[T any] struct {
	section string     // the section's key in the configuration: "images", "pruning"
	tenant  string     // the tenant's name, for FromTenant
	top     Overlay[T] // the overlay on top, for FromTenant and FromJob
	over    bool       // top is the layer reported on
}

// FromConfig reports every bad value of the configuration's section, by
// its key ("pruning.soft_trim_ratio").
func FromConfig[T any](section string) Source[T] { return Source[T]{section: section} }

// FromTenant reports the bad values a tenant's overlay set, by the
// tenant's key ("tenants.acme.pruning.soft_trim_ratio"). The values it
// inherits were reported under the configuration's keys.
func FromTenant[T any](section, tenant string, o Overlay[T]) Source[T] {
	return Source[T]{section: section, tenant: tenant, top: o, over: true}
}

// FromJob reports the bad values a job's options set, by the option as the
// job spelt it ("options.pruning.soft_trim_ratio"). The values it
// inherits were checked when the configuration loaded.
func FromJob[T any](o Overlay[T]) Source[T] { return Source[T]{top: o, over: true} }

// name is the source's name of the field at path (a YAML path, maybe with
// a list index: "tools.allow[2]"), and whether the source set it.
func (s Source[T]) name(path string) (string, bool) {
	field, index, _ := strings.Cut(path, "[")
	if index != "" {
		index = "[" + index
	}
	if !s.over {
		return s.section + "." + path, true
	}
	k, ok := s.top.sets(field)
	switch {
	case !ok:
		return "", false
	case k.name != "":
		return k.name + index, true
	default:
		return "tenants." + s.tenant + "." + s.section + "." + path, true
	}
}

// Validate checks a resolved section with its one set of range rules and
// returns one sentence per bad value the source's layer set, each naming
// the field as that layer does: "options.pruning.soft_trim_ratio: must be
// between 0 and 1, got 3". Out-of-range values are errors, not clamped: the
// operator or runner that sent them has a bug worth seeing.
func Validate[T Images | Pruning | Context](v T, src Source[T]) []string {
	c := checks{}
	switch s := any(v).(type) {
	case Images:
		s.check(&c)
	case Pruning:
		s.check(&c)
	case Context:
		s.check(&c)
	}
	var out []string
	for _, p := range c {
		if name, ok := src.name(p.path); ok {
			out = append(out, name+": "+p.msg)
		}
	}
	return out
}

func (im Images) check(c *checks) {
	c.atLeast("max_dimension_px", int64(im.MaxDimensionPx), 1)
	c.atLeast("max_bytes", im.MaxBytes, 1)
	c.atLeast("max_input_pixels", im.MaxInputPixels, 1)
	c.atLeast("max_base64_bytes", im.MaxBase64Bytes, 1)
	c.atLeast("max_frames", int64(im.MaxFrames), 1)
	c.atLeast("many_images_threshold", int64(im.ManyImagesThreshold), 0)
	c.atLeast("many_images_max_dimension_px", int64(im.ManyImagesMaxDimensionPx), 0)
	c.atLeast("max_images_per_request", int64(im.MaxImagesPerRequest), 0)
}

func (p Pruning) check(c *checks) {
	if p.Mode != PruningOff && p.Mode != PruningCacheTTL {
		c.add("mode", "must be one of %q, %q, got %q", PruningOff, PruningCacheTTL, p.Mode)
	}
	if p.TTL < 0 {
		c.add("ttl", "must not be negative, got %s", p.TTL)
	}
	c.atLeast("keep_last_assistants", int64(p.KeepLastAssistants), 0)
	c.ratio("soft_trim_ratio", p.SoftTrimRatio)
	c.ratio("hard_clear_ratio", p.HardClearRatio)
	c.atLeast("min_prunable_tool_chars", int64(p.MinPrunableToolChars), 0)
	c.atLeast("soft_trim.max_chars", int64(p.SoftTrim.MaxChars), 0)
	c.atLeast("soft_trim.head_chars", int64(p.SoftTrim.HeadChars), 0)
	c.atLeast("soft_trim.tail_chars", int64(p.SoftTrim.TailChars), 0)
	c.notBlank("hard_clear.placeholder", p.HardClear.Placeholder)
	c.noneBlank("tools.allow", p.Tools.Allow)
	c.noneBlank("tools.deny", p.Tools.Deny)
}

// checks collects the bad values of a section, by YAML path.
type checks []problem

type problem struct{ path, msg string }

func (c *checks) add(path, format string, args ...any) {
	*c = append(*c, problem{path, fmt.Sprintf(format, args...)})
}

func (c *checks) atLeast(path string, v, least int64) {
	if v < least {
		c.add(path, "must be at least %d, got %d", least, v)
	}
}

func (c *checks) ratio(path string, x float64) {
	if !(x >= 0 && x <= 1) {
		c.add(path, "must be between 0 and 1, got %s", strconv.FormatFloat(x, 'g', -1, 64))
	}
}

func (c *checks) notBlank(path, v string) {
	if strings.TrimSpace(v) == "" {
		c.add(path, "must not be empty")
	}
}

// noneBlank checks every item of the list at path, naming a blank one by
// its index ("tools.allow[2]").
func (c *checks) noneBlank(path string, list []string) {
	for i, v := range list {
		if strings.TrimSpace(v) == "" {
			c.add(fmt.Sprintf("%s[%d]", path, i), "must not be empty")
		}
	}
}

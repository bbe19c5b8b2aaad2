package config

import "time"

// TenantOverride is one tenant's entry under `tenants:`. Every field is
// optional; a nil field inherits the global value.
type TenantOverride struct {
	// Images overrides a subset of the image limits.
	Images *ImagesOverride `yaml:"images,omitempty"`
	// Pruning overrides a subset of the pruning defaults.
	Pruning *PruningOverride `yaml:"pruning,omitempty"`
	// PoolShare overrides pipeline.tenant_max_share for this tenant.
	PoolShare *float64 `yaml:"pool_share,omitempty"`
	// RateLimits overrides rate_limits for this tenant (see operate.go).
	RateLimits *RateLimitsOverride `yaml:"rate_limits,omitempty"`
}

// ImagesOverride is the per-tenant subset of ImagesConfig: the limits that
// shape one tenant's output. Pool size, decoded-byte budget and cache stay
// global.
type ImagesOverride struct {
	MaxDimensionPx           *int   `yaml:"max_dimension_px,omitempty"`
	MaxBytes                 *int64 `yaml:"max_bytes,omitempty"`
	MaxInputPixels           *int64 `yaml:"max_input_pixels,omitempty"`
	MaxBase64Bytes           *int64 `yaml:"max_base64_bytes,omitempty"`
	MaxFrames                *int   `yaml:"max_frames,omitempty"`
	ManyImagesThreshold      *int   `yaml:"many_images_threshold,omitempty"`
	ManyImagesMaxDimensionPx *int   `yaml:"many_images_max_dimension_px,omitempty"`
	MaxImagesPerRequest      *int   `yaml:"max_images_per_request,omitempty"`
}

// PruningOverride is the per-tenant subset of PruningConfig; every field of
// it may be overridden.
type PruningOverride struct {
	Mode                 *string            `yaml:"mode,omitempty"`
	TTL                  *time.Duration     `yaml:"ttl,omitempty"`
	KeepLastAssistants   *int               `yaml:"keep_last_assistants,omitempty"`
	SoftTrimRatio        *float64           `yaml:"soft_trim_ratio,omitempty"`
	HardClearRatio       *float64           `yaml:"hard_clear_ratio,omitempty"`
	MinPrunableToolChars *int               `yaml:"min_prunable_tool_chars,omitempty"`
	SoftTrim             *SoftTrimOverride  `yaml:"soft_trim,omitempty"`
	HardClear            *HardClearOverride `yaml:"hard_clear,omitempty"`
	Tools                *ToolsOverride     `yaml:"tools,omitempty"`
}

// SoftTrimOverride is the per-tenant subset of SoftTrimConfig.
type SoftTrimOverride struct {
	MaxChars  *int `yaml:"max_chars,omitempty"`
	HeadChars *int `yaml:"head_chars,omitempty"`
	TailChars *int `yaml:"tail_chars,omitempty"`
}

// HardClearOverride is the per-tenant subset of HardClearConfig.
type HardClearOverride struct {
	Enabled     *bool   `yaml:"enabled,omitempty"`
	Placeholder *string `yaml:"placeholder,omitempty"`
}

// ToolsOverride is the per-tenant subset of ToolsConfig; a set list replaces
// the global one whole (an empty list clears it).
type ToolsOverride struct {
	Allow *[]string `yaml:"allow,omitempty"`
	Deny  *[]string `yaml:"deny,omitempty"`
}

// ForTenant resolves the effective image limits, pruning defaults and pool
// share for the named tenant. A tenant with no entry gets the global values.
func (c Config) ForTenant(name string) (ImagesConfig, PruningConfig, float64) {
	images, pruning, share := c.Images, c.Pruning, c.Pipeline.TenantMaxShare
	pruning.Tools = ToolsConfig{Allow: cloneStrings(pruning.Tools.Allow), Deny: cloneStrings(pruning.Tools.Deny)}
	o, ok := c.Tenants[name]
	if !ok {
		return images, pruning, share
	}
	if o.Images != nil {
		o.Images.applyTo(&images)
	}
	if o.Pruning != nil {
		o.Pruning.applyTo(&pruning)
	}
	set(&share, o.PoolShare)
	return images, pruning, share
}

func (o *ImagesOverride) applyTo(c *ImagesConfig) {
	set(&c.MaxDimensionPx, o.MaxDimensionPx)
	set(&c.MaxBytes, o.MaxBytes)
	set(&c.MaxInputPixels, o.MaxInputPixels)
	set(&c.MaxBase64Bytes, o.MaxBase64Bytes)
	set(&c.MaxFrames, o.MaxFrames)
	set(&c.ManyImagesThreshold, o.ManyImagesThreshold)
	set(&c.ManyImagesMaxDimensionPx, o.ManyImagesMaxDimensionPx)
	set(&c.MaxImagesPerRequest, o.MaxImagesPerRequest)
}

func (o *PruningOverride) applyTo(c *PruningConfig) {
	set(&c.Mode, o.Mode)
	set(&c.TTL, o.TTL)
	set(&c.KeepLastAssistants, o.KeepLastAssistants)
	set(&c.SoftTrimRatio, o.SoftTrimRatio)
	set(&c.HardClearRatio, o.HardClearRatio)
	set(&c.MinPrunableToolChars, o.MinPrunableToolChars)
	if s := o.SoftTrim; s != nil {
		set(&c.SoftTrim.MaxChars, s.MaxChars)
		set(&c.SoftTrim.HeadChars, s.HeadChars)
		set(&c.SoftTrim.TailChars, s.TailChars)
	}
	if h := o.HardClear; h != nil {
		set(&c.HardClear.Enabled, h.Enabled)
		set(&c.HardClear.Placeholder, h.Placeholder)
	}
	if t := o.Tools; t != nil {
		if t.Allow != nil {
			c.Tools.Allow = cloneStrings(*t.Allow)
		}
		if t.Deny != nil {
			c.Tools.Deny = cloneStrings(*t.Deny)
		}
	}
}

// set copies *from into *to when from is not nil.
func set[T any](to *T, from *T) {
	if from != nil {
		*to = *from
	}
}

func cloneStrings(s []string) []string {
	return append([]string{}, s...)
}

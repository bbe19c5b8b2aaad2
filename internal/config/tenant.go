package config

import "github.com/hygiene-dev/hygiene/internal/settings"

// TenantOverride is one tenant's entry under `tenants:`. Every field is
// optional; what it does not set inherits the global value. The image,
// pruning and rate sections are settings.Overlays of the global sections'
// own types: a tenant writes the same keys, except the global-only ones,
// which checkNode refuses: the image pool, its decoded-byte budget and cache
// (images.Config's keys in ImagesConfig, which settings.Images has not),
// and the waiting-jobs cap (tagged `tenant:"no"`).
type TenantOverride struct {
	// Images overrides image limits.
	Images settings.Overlay[settings.Images] `yaml:"images,omitempty"`
	// Pruning overrides pruning defaults.
	Pruning settings.Overlay[settings.Pruning] `yaml:"pruning,omitempty"`
	// Context overrides the context-window fit defaults.
	Context settings.Overlay[settings.Context] `yaml:"context,omitempty"`
	// PoolShare overrides pipeline.tenant_max_share for this tenant.
	PoolShare *float64 `yaml:"pool_share,omitempty"`
	// RateLimits overrides rate_limits for this tenant (see operate.go).
	RateLimits settings.Overlay[RateLimitsConfig] `yaml:"rate_limits,omitempty"`
}

// PoolShareFor is the named tenant's largest share of the job pool: its
// pool_share, else pipeline.tenant_max_share. (Its image and pruning
// sections are resolved by settings.Resolve, once per tenant, by the
// pipeline's resolver.)
func (c Config) PoolShareFor(name string) float64 {
	if o, ok := c.Tenants[name]; ok && o.PoolShare != nil {
		return *o.PoolShare
	}
	return c.Pipeline.TenantMaxShare
}

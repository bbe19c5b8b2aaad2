package config

// TenantOverride is one tenant's entry under `tenants:`. Every field is
// optional; what it does not set inherits the global value. The image,
// pruning and rate sections are Overlays of the global sections' own types:
// a tenant writes the same keys, except the global-only ones (the image
// pool, its decoded-byte budget and cache, the waiting-jobs cap).
type TenantOverride struct {
	// Images overrides image limits.
	Images Overlay[ImagesConfig] `yaml:"images,omitempty"`
	// Pruning overrides pruning defaults.
	Pruning Overlay[PruningConfig] `yaml:"pruning,omitempty"`
	// PoolShare overrides pipeline.tenant_max_share for this tenant.
	PoolShare *float64 `yaml:"pool_share,omitempty"`
	// RateLimits overrides rate_limits for this tenant (see operate.go).
	RateLimits Overlay[RateLimitsConfig] `yaml:"rate_limits,omitempty"`
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
	o.Images.applyTo(&images)
	o.Pruning.applyTo(&pruning)
	set(&share, o.PoolShare)
	return images, pruning, share
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

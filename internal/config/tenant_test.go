package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/settings"
)

// forTenant resolves a tenant's image and pruning sections and pool share
// as the pipeline's resolver does.
func forTenant(c Config, name string) (settings.Images, settings.Pruning, float64) {
	o := c.Tenants[name]
	return settings.Resolve(c.Images.Images, o.Images, settings.Overlay[settings.Images]{}),
		settings.Resolve(c.Pruning, o.Pruning, settings.Overlay[settings.Pruning]{}),
		c.PoolShareFor(name)
}

func TestTenantSections(t *testing.T) {
	file := `
pipeline:
  tenant_max_share: 0.5
pruning:
  tools:
    allow: ["exec*"]
    deny: ["read"]
tenants:
  acme:
    images: {max_dimension_px: 800, max_images_per_request: 50}
    pruning:
      mode: cache-ttl
      ttl: 10m
      soft_trim: {head_chars: 100}
      hard_clear: {enabled: false}
      tools: {deny: []}
    pool_share: 0.25
  beta:
    pool_share: 1
  gamma: {}
`
	cfg, err := Load(writeFile(t, file), nil)
	if err != nil {
		t.Fatal(err)
	}
	def := Default()

	acmeImages := def.Images
	acmeImages.MaxDimensionPx = 800
	acmeImages.MaxImagesPerRequest = 50
	acmePruning := def.Pruning
	acmePruning.Mode = settings.PruningCacheTTL
	acmePruning.TTL = settings.Duration(10 * time.Minute)
	acmePruning.SoftTrim.HeadChars = 100
	acmePruning.HardClear.Enabled = false
	acmePruning.Tools = settings.Tools{Allow: []string{"exec*"}, Deny: []string{}}

	globalPruning := def.Pruning
	globalPruning.Tools = settings.Tools{Allow: []string{"exec*"}, Deny: []string{"read"}}

	tests := []struct {
		tenant      string
		wantImages  settings.Images
		wantPruning settings.Pruning
		wantShare   float64
	}{
		{"acme", acmeImages.Images, acmePruning, 0.25},
		{"beta", def.Images.Images, globalPruning, 1},
		{"gamma", def.Images.Images, globalPruning, 0.5},
		{"unknown", def.Images.Images, globalPruning, 0.5},
		{"ACME", def.Images.Images, globalPruning, 0.5}, // tenant names are case-sensitive
	}
	for _, tt := range tests {
		t.Run(tt.tenant, func(t *testing.T) {
			images, pruning, share := forTenant(cfg, tt.tenant)
			if !reflect.DeepEqual(images, tt.wantImages) {
				t.Errorf("images = %+v, want %+v", images, tt.wantImages)
			}
			if !reflect.DeepEqual(pruning, tt.wantPruning) {
				t.Errorf("pruning = %+v, want %+v", pruning, tt.wantPruning)
			}
			if share != tt.wantShare {
				t.Errorf("share = %v, want %v", share, tt.wantShare)
			}
		})
	}
}

// A tenant's sections are overlays of the global sections' own types, from
// the file and from HYGIENE_TENANTS alike: the keys it sets win, the others
// inherit.
func TestTenantOverlaysFromTheEnvironment(t *testing.T) {
	cfg, err := Load("", []string{"HYGIENE_TENANTS={acme: {rate_limits: {jobs_per_second: 3}, images: {max_frames: 2}}}"})
	if err != nil {
		t.Fatal(err)
	}
	def := Default()
	if rl := cfg.RateLimitsFor("acme"); rl.JobsPerSecond != 3 || rl.BytesPerSecond != def.RateLimits.BytesPerSecond || rl.MaxWaitingJobs != def.RateLimits.MaxWaitingJobs {
		t.Fatalf("rate limits %+v", rl)
	}
	images, _, _ := forTenant(cfg, "acme")
	want := def.Images.Images
	want.MaxFrames = 2
	if images != want {
		t.Fatalf("images %+v, want %+v", images, want)
	}
	if rl := cfg.RateLimitsFor("other"); rl != def.RateLimits {
		t.Fatalf("another tenant's rates %+v", rl)
	}
}

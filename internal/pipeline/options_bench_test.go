package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// BenchmarkProcessOptions processes a two-message job with no rules, with
// and without design §2's full options, for a tenant with overrides: the
// cost of decoding, resolving and validating the per-job settings.
func BenchmarkProcessOptions(b *testing.B) {
	cfg := config.Default()
	tenants, err := config.Load("", []string{"HYGIENE_TENANTS={acme: {images: {max_dimension_px: 800}, pruning: {mode: cache-ttl}}}"})
	if err != nil {
		b.Fatal(err)
	}
	cfg.Tenants = tenants.Tenants
	p := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{})
	full := strings.Replace(processJob, `"options":{"now_ms":5}`, `"options":{"image_max_dimension_px":1200,"image_max_bytes":5242880,`+
		`"context_window_tokens":200000,"now_ms":5,"pruning":{"mode":"cache-ttl","ttl_ms":300000,"last_cache_touch_ms":1,"keep_last_assistants":3},`+
		`"allowed_tool_names":["read","bash"],"tools_offered":true}`, 1)
	for _, bc := range []struct{ name, job string }{{"now-only", processJob}, {"full-options", full}} {
		b.Run(bc.name, func(b *testing.B) {
			rec := transport.Record{Value: []byte(bc.job)}
			b.ReportAllocs()
			for b.Loop() {
				if out, err := p.Process(context.Background(), rec); err != nil || out.Code != "" {
					b.Fatalf("%v %+v", err, out)
				}
			}
		})
	}
}

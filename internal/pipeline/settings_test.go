package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// A job's options, as design §2 writes them and in the section form,
// resolve onto the tenant's and the configuration's sections; a bad one is
// an invalid_job error naming the option as the job spelt it.
func TestJobOptionsResolve(t *testing.T) {
	cfg := config.Default()
	cfg.Tenants = map[string]config.TenantOverride{"acme": {
		Images:  settings.OverlayOf[settings.Images]("max_dimension_px: 800"),
		Pruning: settings.OverlayOf[settings.Pruning]("{mode: cache-ttl, ttl: 10m}"),
	}}
	resolve := ResolverFor(cfg)
	tests := []struct {
		name, options string
		px            int
		bytes         int64
		ttl           time.Duration
		touch         int64
		err           string // the decode's or the resolver's error; "" for none
	}{
		{name: "none: the tenant's", options: `{}`, px: 800, bytes: 5 << 20, ttl: 10 * time.Minute},
		{name: "null options", options: `null`, px: 800, bytes: 5 << 20, ttl: 10 * time.Minute},
		{name: "design §2 names", options: `{"image_max_dimension_px":1000,"image_max_bytes":1000,"pruning":{"ttl_ms":60000,"last_cache_touch_ms":7}}`,
			px: 1000, bytes: 1000, ttl: time.Minute, touch: 7},
		{name: "section form", options: `{"images":{"max_dimension_px":640,"max_bytes":99}}`, px: 640, bytes: 99, ttl: 10 * time.Minute},
		{name: "both spellings", options: `{"images":{"max_bytes":1},"image_max_bytes":2}`,
			err: "options.image_max_bytes: set twice (also as options.images.max_bytes)"},
		{name: "a worker bound", options: `{"images":{"max_input_pixels":1000000000}}`,
			err: "options.images.max_input_pixels: a worker setting, which a job cannot set"},
		{name: "unknown pruning key", options: `{"pruning":{"ttl":5}}`, err: "options.pruning.ttl: unknown option"},
		{name: "alias out of range", options: `{"image_max_dimension_px":0}`,
			err: "options.image_max_dimension_px: must be at least 1, got 0"},
		{name: "section out of range", options: `{"pruning":{"hard_clear_ratio":-1,"soft_trim":{"head_chars":-2}}}`,
			err: "options.pruning.hard_clear_ratio: must be between 0 and 1, got -1; options.pruning.soft_trim.head_chars: must be at least 0, got -2"},
		{name: "context window", options: `{"context_window_tokens":0}`, err: "options.context_window_tokens: must be at least 1, got 0"},
		{name: "unknown option", options: `{"image_max_px":1}`, err: `options: unknown field "image_max_px"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := strings.Replace(processJob, `"options":{"now_ms":5}`, `"options":`+tc.options, 1)
			tr, err := transcript.DecodeJob([]byte(job), transcript.Limits{})
			if err == nil {
				var got stage.Settings
				if got, err = resolve(tr); err == nil && tc.err == "" {
					if got.Images.MaxDimensionPx != tc.px || got.Images.MaxBytes != tc.bytes ||
						time.Duration(got.Pruning.TTL) != tc.ttl || got.Pruning.LastCacheTouchMs != tc.touch || got.Pruning.Mode != settings.PruningCacheTTL {
						t.Fatalf("images %+v pruning %+v", got.Images, got.Pruning)
					}
				}
			} else if code := transcript.ErrorCode(err); code != deadletter.CodeInvalidJob {
				t.Fatalf("code %q for %v", code, err)
			}
			if got := errText(err); got != tc.err {
				t.Fatalf("error %q, want %q", got, tc.err)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

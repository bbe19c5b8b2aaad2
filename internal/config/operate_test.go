package config

import (
	"strings"
	"testing"
	"time"
)

// The http, tracing and rate_limits settings are reachable from the
// environment, and a tenant's rate_limits override the global ones.
func TestOperateSettingsFromEnv(t *testing.T) {
	cfg, err := Load("", []string{
		"HYGIENE_HTTP_LISTEN=127.0.0.1:8080", "HYGIENE_HTTP_MAX_CONCURRENT=8", "HYGIENE_HTTP_RETRY_AFTER=3s",
		"HYGIENE_TRACING_ENABLED=true", "HYGIENE_TRACING_ENDPOINT=collector:4318", "HYGIENE_TRACING_SAMPLE_RATIO=0.25",
		"HYGIENE_RATE_LIMITS_JOBS_PER_SECOND=100", "HYGIENE_RATE_LIMITS_BYTES_PER_SECOND=1048576",
		"HYGIENE_TENANTS={acme: {rate_limits: {jobs_per_second: 5}}, beta: {pool_share: 0.1}}",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTP.Listen != "127.0.0.1:8080" || cfg.HTTP.MaxConcurrent != 8 || cfg.HTTP.RetryAfter != 3*time.Second {
		t.Errorf("http = %+v", cfg.HTTP)
	}
	if !cfg.Tracing.Enabled || cfg.Tracing.Endpoint != "collector:4318" || cfg.Tracing.SampleRatio != 0.25 {
		t.Errorf("tracing = %+v", cfg.Tracing)
	}
	tests := []struct {
		tenant      string
		jobs, bytes float64
	}{
		{"acme", 5, 1048576},   // its jobs rate, the global bytes rate
		{"beta", 100, 1048576}, // an entry without rate_limits
		{"other", 100, 1048576},
	}
	for _, tt := range tests {
		if got := cfg.RateLimitsFor(tt.tenant); got.JobsPerSecond != tt.jobs || got.BytesPerSecond != tt.bytes {
			t.Errorf("RateLimitsFor(%s) = %+v, want %v jobs/s and %v bytes/s", tt.tenant, got, tt.jobs, tt.bytes)
		}
	}
}

func TestOperateValidation(t *testing.T) {
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"HYGIENE_HTTP_LISTEN=nowhere"}, "http.listen: must be host:port"},
		{[]string{"HYGIENE_HTTP_MAX_CONCURRENT=0"}, "http.max_concurrent: must be at least 1"},
		{[]string{"HYGIENE_HTTP_RETRY_AFTER=0s"}, "http.retry_after: must be a positive duration"},
		{[]string{"HYGIENE_TRACING_ENABLED=true", "HYGIENE_TRACING_ENDPOINT=collector"}, "tracing.endpoint: must be host:port"},
		{[]string{"HYGIENE_TRACING_SAMPLE_RATIO=2"}, "tracing.sample_ratio: must be between 0 and 1"},
		{[]string{"HYGIENE_RATE_LIMITS_JOBS_PER_SECOND=-1"}, "rate_limits.jobs_per_second: must be 0 (unlimited) or more"},
		{[]string{"HYGIENE_RATE_LIMITS_MAX_WAITING_JOBS=0"}, "rate_limits.max_waiting_jobs: must be at least 1"},
		{[]string{"HYGIENE_TENANTS={acme: {rate_limits: {bytes_per_second: -5}}}"}, "tenants.acme.rate_limits.bytes_per_second: must be 0 (unlimited) or more"},
	}
	for _, tt := range tests {
		_, err := Load("", tt.env)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one containing %q", tt.env, err, tt.want)
		}
	}
}

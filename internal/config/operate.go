package config

import (
	"strconv"
	"time"

	"github.com/hygiene-dev/hygiene/internal/apikeys"
	"github.com/hygiene-dev/hygiene/internal/settings"
)

// HTTPConfig is the synchronous sanitize endpoint, POST /v1/sanitize, on a
// listener of its own (not the metrics one, so it can be exposed to runners
// without exposing /metrics). An empty Listen turns it off.
type HTTPConfig struct {
	// Listen is the host:port of the endpoint; "" (the default) is off.
	Listen string `yaml:"listen"`
	// MaxConcurrent caps the requests being read or processed at once;
	// one more gets 429 with Retry-After.
	MaxConcurrent int `yaml:"max_concurrent"`
	// RetryAfter is the wait a 429 or 503 response advises (whole seconds,
	// rounded up).
	RetryAfter time.Duration `yaml:"retry_after"`
	// ReadTimeout bounds reading one request, headers and body.
	ReadTimeout time.Duration `yaml:"read_timeout"`
	// TLS serves the endpoint over HTTPS when both files are set.
	TLS HTTPTLSConfig `yaml:"tls"`
	// Auth requires callers to present an API key bound to the job's
	// tenant (package apikeys).
	Auth apikeys.Config `yaml:"auth"`
}

// HTTPTLSConfig is the http.tls section: a PEM certificate (chain) and
// its key, reloaded when the files change (package tlsfiles).
type HTTPTLSConfig struct {
	// CertFile is the PEM certificate chain; "" serves plain HTTP.
	CertFile string `yaml:"cert_file"`
	// KeyFile is the certificate's PEM private key.
	KeyFile string `yaml:"key_file"`
}

// TracingConfig is the optional OpenTelemetry tracer: one span per job
// and one child span per stage, exported over OTLP/HTTP.
type TracingConfig struct {
	// Enabled turns tracing on; off by default.
	Enabled bool `yaml:"enabled"`
	// Endpoint is the OTLP/HTTP collector's host:port.
	Endpoint string `yaml:"endpoint"`
	// Insecure sends spans over plain HTTP instead of HTTPS.
	Insecure bool `yaml:"insecure"`
	// ServiceName is the service.name resource attribute.
	ServiceName string `yaml:"service_name"`
	// SampleRatio is the share of new traces recorded; a job whose
	// traceparent is sampled is always recorded (parent-based sampling).
	SampleRatio float64 `yaml:"sample_ratio"`
}

// RateLimitsConfig is the per-tenant admission rate, on top of the pool
// share. A tenant over its rate waits before its job reaches the pool; it
// never dead-letters. 0 means unlimited.
type RateLimitsConfig struct {
	// JobsPerSecond is each tenant's sustained job rate (burst: one
	// second's worth, at least one job); 0 = unlimited.
	JobsPerSecond float64 `yaml:"jobs_per_second"`
	// BytesPerSecond is each tenant's sustained rate of record bytes
	// (burst: one second's worth; a larger job waits for a full bucket);
	// 0 = unlimited.
	BytesPerSecond float64 `yaml:"bytes_per_second"`
	// MaxWaitingJobs caps one tenant's jobs waiting for its rate; past it
	// reading waits too (the jobs topic is read in order).
	MaxWaitingJobs int `yaml:"max_waiting_jobs" tenant:"no"`
}

// RateLimitsFor resolves the named tenant's rate limits: the global ones,
// then its override.
func (c Config) RateLimitsFor(tenant string) RateLimitsConfig {
	return settings.Resolve(c.RateLimits, c.Tenants[tenant].RateLimits, settings.Overlay[RateLimitsConfig]{})
}

// validateOperate checks the http, tracing and rate_limits sections.
func (c Config) validateOperate(p *problems) {
	h := c.HTTP
	if h.Listen != "" {
		p.hostPort("http.listen", h.Listen, 0)
	}
	p.atLeast("http.max_concurrent", int64(h.MaxConcurrent), 1)
	p.positive("http.retry_after", h.RetryAfter)
	p.positive("http.read_timeout", h.ReadTimeout)
	if (h.TLS.CertFile == "") != (h.TLS.KeyFile == "") {
		p.add("http.tls: cert_file and key_file go together (both set serves HTTPS, neither plain HTTP)")
	}
	p.addAll(h.Auth.Problems("http.auth"))
	t := c.Tracing
	if t.Enabled {
		p.hostPort("tracing.endpoint", t.Endpoint, 1)
		p.notBlank("tracing.service_name", t.ServiceName)
	}
	p.ratio("tracing.sample_ratio", t.SampleRatio)
	validateRates(p, "rate_limits", c.RateLimits)
	p.atLeast("rate_limits.max_waiting_jobs", int64(c.RateLimits.MaxWaitingJobs), 1)
}

// validateRates checks the rates a tenant may override.
func validateRates(p *problems, at string, rl RateLimitsConfig) {
	p.rate(at+".jobs_per_second", rl.JobsPerSecond)
	p.rate(at+".bytes_per_second", rl.BytesPerSecond)
}

func (p *problems) rate(path string, v float64) {
	if !(v >= 0) {
		p.add("%s: must be 0 (unlimited) or more, got %s", path, strconv.FormatFloat(v, 'g', -1, 64))
	}
}

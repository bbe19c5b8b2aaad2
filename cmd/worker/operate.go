package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/hygiene-dev/hygiene/internal/apikeys"
	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/health"
	"github.com/hygiene-dev/hygiene/internal/httpapi"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/tlsfiles"
	"github.com/hygiene-dev/hygiene/internal/tracing"
)

// startSanitizeHTTP serves POST /v1/sanitize on http.listen through the
// runner, and GET /healthz and /readyz from probes, or does nothing (a nil
// closer) when http.listen is empty. The returned func stops the server,
// letting answers in progress finish.
func startSanitizeHTTP(cfg config.Config, runner *pipeline.Runner, m *metrics.Metrics, log *slog.Logger, probes http.Handler) (func(context.Context) error, error) {
	if cfg.HTTP.Listen == "" {
		return func(context.Context) error { return nil }, nil
	}
	hcfg := httpapi.Config{
		MaxBodyBytes: cfg.Limits.MaxCompressedBytes, MaxConcurrent: cfg.HTTP.MaxConcurrent,
		RetryAfter: cfg.HTTP.RetryAfter, ReadTimeout: cfg.HTTP.ReadTimeout, MaxJobBytes: cfg.Limits.MaxJobBytes,
	}
	if cfg.HTTP.Auth.Enabled() {
		keys, err := apikeys.Load(cfg.HTTP.Auth)
		if err != nil {
			return nil, fmt.Errorf("http.auth: %w", err)
		}
		hcfg.Keys = keys
	}
	var tlsConfig *tls.Config
	if cfg.HTTP.TLS.CertFile != "" {
		cert, err := tlsfiles.Load(cfg.HTTP.TLS.CertFile, cfg.HTTP.TLS.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("http.tls: %w", err)
		}
		tlsConfig = cert.ServerConfig()
	}
	srv, err := health.ListenTLS(cfg.HTTP.Listen, sanitizeHandler(hcfg, runner, m, log, probes), tlsConfig)
	if err != nil {
		return nil, fmt.Errorf("http.listen: %w", err)
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	if hcfg.Keys == nil {
		log.Warn("the sanitize endpoint takes jobs for any tenant from any caller (http.auth has no keys); set http.auth before exposing it")
	}
	log.Info("sanitize endpoint started", "url", scheme+"://"+srv.Addr()+httpapi.Path, "max_concurrent", cfg.HTTP.MaxConcurrent,
		"api_keys", hcfg.Keys != nil)
	return srv.Close, nil
}

// probeRoutes are the routes of the metrics listener's probes the sanitize
// listener serves too, so a load balancer in front of it can check it (not
// /metrics, which can stay internal).
var probeRoutes = []string{"GET /healthz", "GET /readyz"}

// sanitizeHandler is the sanitize listener's mux: package httpapi's routes
// (POST /v1/sanitize, GET /openapi.json) and probeRoutes, served by probes.
func sanitizeHandler(cfg httpapi.Config, runner *pipeline.Runner, m *metrics.Metrics, log *slog.Logger, probes http.Handler) http.Handler {
	h := http.NewServeMux()
	h.Handle("/", httpapi.Handler(cfg, runner, m, log))
	for _, pattern := range probeRoutes {
		h.Handle(pattern, probes)
	}
	return h
}

// withTracing wraps proc in the job span of package tracing when
// tracing.enabled is set. The returned func flushes and stops the exporter
// (bounded, so a collector that is away cannot hold the shutdown).
func withTracing(ctx context.Context, cfg config.TracingConfig, proc pipeline.JobProcessor, log *slog.Logger) (pipeline.JobProcessor, func(), error) {
	if !cfg.Enabled {
		return proc, func() {}, nil
	}
	tp, err := tracing.NewProvider(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	// Export failures (a collector that is away) go to the worker's log
	// instead of the standard logger.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("tracing: exporting spans failed", "err", err) }))
	log.Info("tracing: exporting spans over OTLP/HTTP", "endpoint", cfg.Endpoint, "sample_ratio", cfg.SampleRatio)
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			log.Warn("tracing: flushing the last spans failed", "err", err)
		}
	}
	return tracing.Processor{Next: proc, Tracer: tp.Tracer(pipeline.TracerName)}, stop, nil
}

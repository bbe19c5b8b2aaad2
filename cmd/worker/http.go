package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/health"
	"github.com/hygiene-dev/hygiene/internal/httpapi"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
)

// startSanitizeHTTP serves POST /v1/sanitize on http.listen through the
// runner, or does nothing (a nil closer) when http.listen is empty. The
// returned func stops the server, letting answers in progress finish.
func startSanitizeHTTP(cfg config.Config, runner *pipeline.Runner, m *metrics.Metrics, log *slog.Logger) (func(context.Context) error, error) {
	if cfg.HTTP.Listen == "" {
		return func(context.Context) error { return nil }, nil
	}
	h := httpapi.Handler(httpapi.Config{
		MaxBodyBytes: cfg.Limits.MaxCompressedBytes, MaxConcurrent: cfg.HTTP.MaxConcurrent,
		RetryAfter: cfg.HTTP.RetryAfter, ReadTimeout: cfg.HTTP.ReadTimeout,
	}, runner, m, log)
	srv, err := health.Listen(cfg.HTTP.Listen, h)
	if err != nil {
		return nil, fmt.Errorf("http.listen: %w", err)
	}
	log.Info("sanitize endpoint started", "url", "http://"+srv.Addr()+httpapi.Path, "max_concurrent", cfg.HTTP.MaxConcurrent)
	return srv.Close, nil
}

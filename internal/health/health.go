// Package health serves the worker's operational HTTP endpoints: /metrics
// (Prometheus text from an injected Gatherer), /healthz (the process is
// alive and its pool is up) and /readyz (it holds partitions and can work).
// A check is a func returning nil when fine or an error whose sentence is
// the response body, so a probe's failure says why.
//
// May import: no package of this module.
package health

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Check returns nil when healthy, else an error naming what is wrong.
type Check func() error

// Handler returns the mux serving /metrics from g, /healthz from live and
// /readyz from ready.
func Handler(g prometheus.Gatherer, live, ready Check) http.Handler {
	mux := http.NewServeMux()
	for pattern, route := range routes(g, live, ready) {
		mux.Handle(pattern, route)
	}
	return mux
}

// routes are Handler's routes by pattern.
func routes(g prometheus.Gatherer, live, ready Check) map[string]http.Handler {
	return map[string]http.Handler{
		"GET /metrics": promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}),
		"GET /healthz": probe(live),
		"GET /readyz":  probe(ready),
	}
}

// Routes lists the patterns Handler serves, sorted (the OpenAPI document
// of package schemas lists each of them).
func Routes() []string {
	return slices.Sorted(maps.Keys(routes(prometheus.NewRegistry(), nil, nil)))
}

func probe(check Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := check(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, err)
			return
		}
		fmt.Fprintln(w, "ok")
	})
}

// Server is a running HTTP server for Handler.
type Server struct {
	srv   *http.Server
	ln    net.Listener
	done  chan error
	close sync.Once
	err   error // Close's result, kept for later calls
}

// Listen serves h on addr ("127.0.0.1:0" picks a free port). Besides the
// Handler of this package it serves the sanitize endpoint (package httpapi)
// on its own address.
func Listen(addr string, h http.Handler) (*Server, error) { return ListenTLS(addr, h, nil) }

// ListenTLS is Listen over TLS with cfg; a nil cfg serves plain HTTP.
func ListenTLS(addr string, h http.Handler, cfg *tls.Config) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("health: listening on %s: %w", addr, err)
	}
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	s := &Server{srv: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}, ln: ln, done: make(chan error, 1)}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, letting requests in progress finish until ctx
// ends. Calls after the first return the first one's result.
func (s *Server) Close(ctx context.Context) error {
	s.close.Do(func() {
		s.err = s.srv.Shutdown(ctx)
		if serveErr := <-s.done; !errors.Is(serveErr, http.ErrServerClosed) && s.err == nil {
			s.err = serveErr
		}
	})
	return s.err
}

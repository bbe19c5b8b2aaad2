package metrics_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hygiene-dev/hygiene/internal/health"
	"github.com/hygiene-dev/hygiene/internal/metrics"
)

// TestPprofOnlyWhenOn serves the worker's metrics handler over a real
// listener with metrics.pprof off and on: /debug/pprof/ (and a heap
// profile) answer only when on, and /metrics answers either way.
func TestPprofOnlyWhenOn(t *testing.T) {
	for _, on := range []bool{false, true} {
		ok := func() error { return nil }
		srv, err := health.Listen("127.0.0.1:0", metrics.WithPprof(health.Handler(prometheus.NewRegistry(), ok, ok), on))
		if err != nil {
			t.Fatal(err)
		}
		base := "http://" + srv.Addr()
		for path, want := range map[string]int{
			"/metrics":                            http.StatusOK,
			metrics.PprofPath:                     map[bool]int{false: http.StatusNotFound, true: http.StatusOK}[on],
			metrics.PprofPath + "heap?debug=1":    map[bool]int{false: http.StatusNotFound, true: http.StatusOK}[on],
			metrics.PprofPath + "cmdline":         map[bool]int{false: http.StatusNotFound, true: http.StatusOK}[on],
			metrics.PprofPath + "goroutine?debug": map[bool]int{false: http.StatusNotFound, true: http.StatusOK}[on],
		} {
			res, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != want {
				t.Errorf("pprof %v: GET %s = %d, want %d", on, path, res.StatusCode, want)
			}
			if on && path == metrics.PprofPath && !strings.Contains(string(body), "goroutine") {
				t.Errorf("pprof on: the index does not list the goroutine profile: %.200s", body)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := srv.Close(ctx); err != nil {
			t.Error(err)
		}
		cancel()
	}
}

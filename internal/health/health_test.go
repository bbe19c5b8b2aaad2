package health

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestEndpointsOverHTTP(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "hygiene_test_total", Help: "A test counter."})
	reg.MustRegister(c)
	c.Add(3)
	var ready atomic.Bool
	srv, err := Listen("127.0.0.1:0", Handler(reg,
		func() error { return nil },
		func() error {
			if !ready.Load() {
				return errors.New("no partitions of hygiene.jobs are assigned")
			}
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())

	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + srv.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	tests := []struct {
		path   string
		ready  bool
		status int
		body   string
	}{
		{"/healthz", false, 200, "ok"},
		{"/readyz", false, 503, "no partitions of hygiene.jobs are assigned"},
		{"/readyz", true, 200, "ok"},
		{"/metrics", true, 200, "hygiene_test_total 3"},
		{"/nothing", true, 404, ""},
	}
	for _, tt := range tests {
		ready.Store(tt.ready)
		status, body := get(tt.path)
		if status != tt.status || !strings.Contains(body, tt.body) {
			t.Errorf("GET %s = %d %q, want %d containing %q", tt.path, status, body, tt.status, tt.body)
		}
	}
}

func TestListenNamesTheAddress(t *testing.T) {
	srv, err := Listen("127.0.0.1:0", http.NotFoundHandler())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())
	if _, err := Listen(srv.Addr(), http.NotFoundHandler()); err == nil || !strings.Contains(err.Error(), srv.Addr()) {
		t.Fatalf("Listen on a taken address = %v, want an error naming it", err)
	}
}

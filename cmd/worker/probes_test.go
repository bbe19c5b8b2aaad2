package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hygiene-dev/hygiene/internal/config"
)

// pausedBroker is what a paused broker (SIGSTOP, a frozen VM) looks like
// from outside: the kernel accepts the TCP connection, and nothing is ever
// answered. It holds the connections until closed.
type pausedBroker struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startPausedBroker(t *testing.T) *pausedBroker {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &pausedBroker{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conns = append(b.conns, c)
			b.mu.Unlock()
		}
	}()
	return b
}

func (b *pausedBroker) Close() {
	b.ln.Close()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.conns {
		c.Close()
	}
}

// TestProbesAnswerWhileBrokersArePaused: a worker started against a paused
// broker serves /healthz (alive) and /readyz (503, saying it waits for topic
// leaders) at once, while it waits; on SIGTERM it stops without having
// started anything else.
func TestProbesAnswerWhileBrokersArePaused(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	broker := startPausedBroker(t)
	defer broker.Close()
	addr, errc, cancel := startWorkerOn(t, broker.ln.Addr().String())
	defer cancel()
	get := func(path string) (int, string) {
		t.Helper()
		client := &http.Client{Timeout: 2 * time.Second}
		resp, err := client.Get("http://" + addr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz while the broker is paused: %d %q, want 200", code, body)
	}
	if code, body := get("/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "waiting for topic leaders") {
		t.Errorf("/readyz while the broker is paused: %d %q, want 503 waiting for topic leaders", code, body)
	}
	if code, _ := get("/metrics"); code != http.StatusOK {
		t.Errorf("/metrics while the broker is paused: %d, want 200", code)
	}
	select {
	case err := <-errc:
		t.Fatalf("the worker gave up on a paused broker: %v", err)
	default:
	}
	cancel()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "making sure the topics") {
			t.Errorf("a worker stopped while waiting for brokers returned %v, want the topics' error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not stop within 10s of its signal while waiting for brokers")
	}
}

// TestWorkerWaitsForAbsentBrokers: with no broker listening at all, the
// worker keeps trying (it does not exit into a restart loop) and /readyz
// names the last error.
func TestWorkerWaitsForAbsentBrokers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	absent := ln.Addr().String()
	ln.Close() // nothing listens there now: no broker answers
	addr, errc, cancel := startWorkerOn(t, absent)
	defer cancel()
	// The first attempts fail at once; after them /readyz carries the
	// dial's error (polled: the backoff is on the worker's own clock).
	var body string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if body = string(b); strings.Contains(body, "kafka: ") {
			break
		}
	}
	if !strings.Contains(body, "kafka: ") {
		t.Fatalf("/readyz does not name the brokers' error after 20s: %q", body)
	}
	select {
	case err := <-errc:
		t.Fatalf("the worker gave up on absent brokers: %v", err)
	default:
	}
	cancel()
	if err := <-errc; err == nil {
		t.Error("a worker stopped before its brokers came returned no error")
	}
}

// startWorkerOn starts runWorker against brokers, waits until its probes
// listen and returns their address, the worker's result and its stop.
func startWorkerOn(t *testing.T, brokers string) (string, chan error, context.CancelFunc) {
	t.Helper()
	cfg := config.Default()
	cfg.Kafka.Brokers = []string{brokers}
	cfg.Metrics.Listen = "127.0.0.1:0"
	logs := &logWatch{want: "probes and metrics listening", found: make(chan map[string]any, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- runWorker(ctx, cfg, runOptions{stdout: io.Discard}, nil, slog.New(slog.NewJSONHandler(logs, nil)))
	}()
	select {
	case entry := <-logs.found:
		addr, _ := entry["addr"].(string)
		return addr, errc, cancel
	case err := <-errc:
		cancel()
		t.Fatalf("the worker stopped before serving its probes: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("the probes were not served within 10s of the start")
	}
	return "", nil, nil
}

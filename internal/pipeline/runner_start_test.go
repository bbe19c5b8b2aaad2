package pipeline

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/memory"
)

// TestNewRunnerStartsNothing: a runner built and never run leaks no
// goroutine and reports no pool; Run starts the pool (a job submitted
// before Run waits for it and is then answered) and stops it again.
func TestNewRunnerStartsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		g := newRig(t, 1)
		r, src := g.runner(t, ProcessorFunc(echo), nil)
		if r.Healthy() || r.Draining() {
			t.Fatalf("before Run: Healthy %v, Draining %v; want both false", r.Healthy(), r.Draining())
		}
		if err := src.Close(context.Background()); err != nil {
			t.Fatal(err)
		}

		g = newRig(t, 1)
		src, err := g.b.NewSource(memory.SourceConfig{Topic: jobsTopic, Group: group}) // no end of input: Run runs until cancelled
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close(context.Background())
		r, err = NewRunner(g.cfg, RunnerDeps{Source: src, Ready: g.ready, DLQ: g.dlq, Processor: ProcessorFunc(echo), Metrics: g.m})
		if err != nil {
			t.Fatal(err)
		}
		answered := make(chan error, 1)
		go func() {
			out, err := r.Submit(context.Background(), transport.Record{Key: []byte("acme/s1"), Value: []byte("early")})
			if err == nil && string(out.Payload) != "early" {
				t.Errorf("Submit before Run answered %q", out.Payload)
			}
			answered <- err
		}()
		waitFor(t, func() bool { _, waiting := r.sch.counts(); return waiting == 1 })
		select {
		case err := <-answered:
			t.Fatalf("Submit before Run returned %v before Run started the pool", err)
		case <-time.After(20 * time.Millisecond):
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		runDone := make(chan error, 1)
		go func() { runDone <- r.Run(ctx) }()
		if err := <-answered; err != nil {
			t.Fatalf("Submit before Run: %v", err)
		}
		if !r.Healthy() {
			t.Fatal("Healthy is false while Run runs")
		}
		cancel()
		if err := <-runDone; err != nil {
			t.Fatalf("Run: %v", err)
		}
		if r.Healthy() || !r.Draining() {
			t.Fatalf("after Run: Healthy %v, Draining %v; want false, true", r.Healthy(), r.Draining())
		}
	})
}

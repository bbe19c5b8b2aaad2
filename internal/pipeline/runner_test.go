package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/memory"
)

func TestRunnerKeepsKeyOrderAndRunsKeysInParallel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 3)
		keys := []string{"acme/a", "acme/b", "beta/c", "beta/d", "gamma/e", "gamma/f"}
		total := g.produce(t, keys, 30)

		var mu sync.Mutex
		seen := map[string][]int{}
		var conc concurrency
		p := ProcessorFunc(func(ctx context.Context, rec transport.Record) (Outcome, error) {
			conc.enter("")
			defer conc.leave("")
			k, n, _ := strings.Cut(string(rec.Value), "#")
			i, _ := strconv.Atoi(n)
			time.Sleep(time.Duration(i%3) * time.Millisecond) // jobs of one key take different times
			mu.Lock()
			seen[k] = append(seen[k], i)
			mu.Unlock()
			return echo(ctx, rec)
		})
		g.runToEnd(t, p)

		for _, k := range keys {
			got := seen[k]
			if len(got) != 30 {
				t.Fatalf("key %s: processed %d jobs, want 30", k, len(got))
			}
			for i, v := range got {
				if v != i {
					t.Fatalf("key %s processed out of order: %v", k, got)
				}
			}
		}
		if conc.max < 2 {
			t.Errorf("at most %d jobs ran at once; different keys must run in parallel", conc.max)
		}
		if conc.max > g.cfg.Workers {
			t.Errorf("%d jobs ran at once on a pool of %d", conc.max, g.cfg.Workers)
		}
		if n := len(g.records(t, readyTopic)); n != total {
			t.Errorf("ready topic has %d records, want %d", n, total)
		}
		if !g.committedAll(t, total) {
			t.Errorf("committed %v, want every one of %d jobs", g.b.Committed(jobsTopic, group), total)
		}
		for _, c := range []struct {
			name string
			got  float64
		}{
			{"hygiene_pool_running", testutil.ToFloat64(g.m.PoolRunning)},
			{"hygiene_pool_waiting", testutil.ToFloat64(g.m.PoolWaiting)},
			{"hygiene_inflight_jobs", testutil.ToFloat64(g.m.InflightJobs)},
			{"hygiene_inflight_bytes", testutil.ToFloat64(g.m.InflightBytes)},
		} {
			if c.got != 0 {
				t.Errorf("%s = %v after every job was acknowledged, want 0", c.name, c.got)
			}
		}
		if got := testutil.ToFloat64(g.m.Jobs.WithLabelValues("ready")); got != float64(total) {
			t.Errorf("hygiene_jobs_total{outcome=ready} = %v, want %d", got, total)
		}
		// Per key, the ready records are in the order of the jobs.
		last := map[string]int{}
		for _, r := range g.records(t, readyTopic) {
			k, n, _ := strings.Cut(string(r.Value), "#")
			i, _ := strconv.Atoi(n)
			if prev, ok := last[k]; ok && i != prev+1 {
				t.Fatalf("ready records of key %s out of order: %d after %d", k, i, prev)
			}
			last[k] = i
		}
	})
}

func TestRunnerTenantCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 4)
		g.cfg.Workers = 4
		g.cfg.TenantShare = func(tenant string) float64 {
			if tenant == "small" {
				return 0.25
			}
			return 0.5
		}
		var keys []string
		for i := range 8 {
			keys = append(keys, fmt.Sprintf("big/s%d", i), fmt.Sprintf("small/s%d", i))
		}
		g.produce(t, keys, 4)
		var conc concurrency
		p := ProcessorFunc(func(ctx context.Context, rec transport.Record) (Outcome, error) {
			tenant := tenantOfKey(rec.Key)
			conc.enter(tenant)
			defer conc.leave(tenant)
			time.Sleep(2 * time.Millisecond)
			return echo(ctx, rec)
		})
		g.runToEnd(t, p)
		if hi := conc.tenantHi["big"]; hi != 2 {
			t.Errorf("tenant big held %d workers at once, want its cap 2 (0.5 of 4) reached and not passed", hi)
		}
		if hi := conc.tenantHi["small"]; hi != 1 {
			t.Errorf("tenant small held %d workers at once, want its cap 1 (0.25 of 4)", hi)
		}
	})
}

func TestRunnerTenantCapLetsOthersThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 2)
		g.cfg.Workers = 2
		g.cfg.TenantShare = func(string) float64 { return 0.5 }
		var keys []string
		for i := range 10 {
			keys = append(keys, fmt.Sprintf("hog/s%d", i))
		}
		g.produce(t, keys, 1)
		g.produce(t, []string{"other/s"}, 1)

		release := make(chan struct{})
		otherDone := make(chan struct{})
		p := ProcessorFunc(func(ctx context.Context, rec transport.Record) (Outcome, error) {
			if tenantOfKey(rec.Key) == "hog" {
				select {
				case <-release:
				case <-ctx.Done():
					return Outcome{}, ctx.Err()
				}
			} else {
				close(otherDone)
			}
			return echo(ctx, rec)
		})
		r, src := g.runner(t, p, nil)
		errc := make(chan error, 1)
		go func() { errc <- r.Run(context.Background()) }()
		select {
		case <-otherDone: // the hog holds one worker and waits; the other tenant got the second
		case <-time.After(10 * time.Second):
			t.Fatal("a tenant at its cap blocked another tenant")
		}
		close(release)
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		_ = src.Close(context.Background())
	})
}

func TestRunnerDeadLetters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 2)
		g.ready = g.b.NewSink(memory.SinkConfig{Topic: readyTopic, MaxMessageBytes: 100, CompressAbove: -1})
		bad := transport.Record{Key: []byte("acme/s"), Value: []byte(`{"not json`),
			Headers: []transport.Header{{Key: "trace", Value: []byte("t1")}}}
		if err := g.jobs.Write(context.Background(), bad,
			transport.Record{Key: []byte("acme/s"), Value: []byte("panic")},
			transport.Record{Key: []byte("acme/s"), Value: []byte("huge")},
			transport.Record{Key: []byte("acme/s"), Value: []byte("fine")},
		); err != nil {
			t.Fatal(err)
		}
		p := ProcessorFunc(func(ctx context.Context, rec transport.Record) (Outcome, error) {
			switch string(rec.Value) {
			case "panic":
				panic("boom")
			case "huge":
				return Outcome{Ready: true, Payload: bytes.Repeat([]byte("x"), 200)}, nil
			case "fine":
				return echo(ctx, rec)
			}
			return Outcome{Code: "invalid_json", Error: "the job is not valid JSON at byte 10", Stage: StageDecode}, nil
		})
		g.runToEnd(t, p)

		dlq := g.records(t, dlqTopic)
		want := []struct{ value, code, stage string }{
			{`{"not json`, "invalid_json", StageDecode},
			{"panic", string(deadletter.CodeInternalError), StageRunner},
			{"huge", string(deadletter.CodeOutputTooLarge), StageRunner},
		}
		if len(dlq) != len(want) {
			t.Fatalf("dead-letter topic has %d records, want %d", len(dlq), len(want))
		}
		for i, w := range want {
			d := dlq[i]
			if string(d.Value) != w.value || string(d.Key) != "acme/s" {
				t.Errorf("dead letter %d = %q key %q, want the original %q", i, d.Value, d.Key, w.value)
			}
			if code, _ := d.Header(deadletter.HeaderErrorCode); string(code) != w.code {
				t.Errorf("dead letter %d code = %q, want %q", i, code, w.code)
			}
			if st, _ := d.Header(deadletter.HeaderStage); string(st) != w.stage {
				t.Errorf("dead letter %d stage = %q, want %q", i, st, w.stage)
			}
			if msg, _ := d.Header(deadletter.HeaderError); len(msg) == 0 {
				t.Errorf("dead letter %d has no error sentence", i)
			}
			if src, _ := d.Header(deadletter.HeaderSource); !strings.HasPrefix(string(src), jobsTopic+"/") {
				t.Errorf("dead letter %d source = %q", i, src)
			}
		}
		if tr, _ := dlq[0].Header("trace"); string(tr) != "t1" {
			t.Errorf("the original headers were not kept: %v", dlq[0].Headers)
		}
		if ready := g.records(t, readyTopic); len(ready) != 1 || string(ready[0].Value) != "fine" {
			t.Errorf("ready topic = %v, want the one good job", ready)
		}
		if !g.committedAll(t, 4) {
			t.Errorf("dead letters must be acknowledged: committed %v", g.b.Committed(jobsTopic, group))
		}
		if got := testutil.ToFloat64(g.m.DLQRecords.WithLabelValues(string(deadletter.CodeInternalError))); got != 1 {
			t.Errorf("hygiene_dlq_records_total{code=internal_error} = %v", got)
		}
	})
}

// flakySink fails its first n writes with a transient error.
type flakySink struct {
	transport.Sink
	fails atomic.Int32
}

func (f *flakySink) Write(ctx context.Context, recs ...transport.Record) error {
	if f.fails.Add(-1) >= 0 {
		return errors.New("broker not available")
	}
	return f.Sink.Write(ctx, recs...)
}

func TestRunnerRetriesTransientWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 1)
		g.produce(t, []string{"acme/s"}, 3)
		flaky := &flakySink{Sink: g.ready}
		flaky.fails.Store(5)
		g.ready = flaky
		g.runToEnd(t, ProcessorFunc(echo))
		if n := len(g.records(t, readyTopic)); n != 3 {
			t.Errorf("ready topic has %d records, want 3 (each written once after the retries)", n)
		}
		if got := testutil.ToFloat64(g.m.SinkRetries); got != 5 {
			t.Errorf("hygiene_sink_retries_total = %v, want 5", got)
		}
		if !g.committedAll(t, 3) {
			t.Errorf("committed %v", g.b.Committed(jobsTopic, group))
		}
	})
}

func TestRunnerNeverAcksUnwrittenOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 1)
		g.produce(t, []string{"acme/s"}, 2)
		g.cfg.ShutdownTimeout = 50 * time.Millisecond
		good := g.ready
		broken := &flakySink{Sink: good}
		broken.fails.Store(1 << 30)
		g.ready = broken
		r, src := g.runner(t, ProcessorFunc(echo), nil)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- r.Run(ctx) }()
		for testutil.ToFloat64(g.m.SinkRetries) < 3 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		if err := <-errc; err == nil {
			t.Fatal("Run returned nil although the drain could not finish the jobs")
		}
		_ = src.Close(context.Background())
		if got := g.b.Committed(jobsTopic, group); got[0] != 0 {
			t.Fatalf("committed %v although no output was written", got)
		}
		// The next worker gets both jobs again.
		g.ready = good
		g.runToEnd(t, ProcessorFunc(echo))
		if n := len(g.records(t, readyTopic)); n != 2 {
			t.Errorf("ready topic has %d records after the redelivery, want 2", n)
		}
	})
}

func TestRunnerGracefulDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 2)
		total := g.produce(t, []string{"a/1", "a/2", "b/1"}, 5)
		started := make(chan struct{}, total)
		p := ProcessorFunc(func(ctx context.Context, rec transport.Record) (Outcome, error) {
			started <- struct{}{}
			time.Sleep(5 * time.Millisecond)
			return echo(ctx, rec)
		})
		r, src := g.runner(t, p, nil)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- r.Run(ctx) }()
		<-started
		cancel() // SIGTERM: stop reading, finish what was read
		if err := <-errc; err != nil {
			t.Fatalf("Run after a graceful drain: %v", err)
		}
		if err := src.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		ready := len(g.records(t, readyTopic))
		var committed int64
		for _, off := range g.b.Committed(jobsTopic, group) {
			committed += off
		}
		if ready == 0 || int64(ready) != committed {
			t.Fatalf("after the drain %d outputs were written and %d offsets committed; want equal and non-zero", ready, committed)
		}
		if got := testutil.ToFloat64(g.m.InflightJobs); got != 0 {
			t.Errorf("hygiene_inflight_jobs = %v after the drain", got)
		}
	})
}

func TestRunnerInflightBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 4)
		g.cfg.MaxInflightJobs = 3
		g.cfg.Workers = 8
		var keys []string
		for i := range 16 {
			keys = append(keys, fmt.Sprintf("t%d/s", i))
		}
		g.produce(t, keys, 2)
		var conc concurrency
		var over atomic.Bool
		p := ProcessorFunc(func(ctx context.Context, rec transport.Record) (Outcome, error) {
			conc.enter("")
			defer conc.leave("")
			if testutil.ToFloat64(g.m.InflightJobs) > 3 {
				over.Store(true)
			}
			time.Sleep(time.Millisecond)
			return echo(ctx, rec)
		})
		g.runToEnd(t, p)
		if conc.max > 3 || over.Load() {
			t.Errorf("%d jobs ran at once with an in-flight cap of 3", conc.max)
		}
	})
}

func TestRunnerConfigValidation(t *testing.T) {
	good := RunnerConfig{Workers: 1, MaxInflightJobs: 1, MaxInflightBytes: 1, RetryInitialBackoff: 1, RetryMaxBackoff: 1, ShutdownTimeout: 1}
	tests := []struct {
		name string
		edit func(*RunnerConfig)
	}{
		{"no workers", func(c *RunnerConfig) { c.Workers = 0 }},
		{"no job cap", func(c *RunnerConfig) { c.MaxInflightJobs = 0 }},
		{"no byte cap", func(c *RunnerConfig) { c.MaxInflightBytes = 0 }},
		{"backoff max below start", func(c *RunnerConfig) { c.RetryInitialBackoff = 2 }},
		{"no shutdown timeout", func(c *RunnerConfig) { c.ShutdownTimeout = 0 }},
	}
	if err := good.validate(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		c := good
		tt.edit(&c)
		if err := c.validate(); err == nil {
			t.Errorf("%s: validate accepted it", tt.name)
		}
	}
}

func TestTenantOfKey(t *testing.T) {
	for key, want := range map[string]string{"acme/agent:main:1": "acme", "acme": "acme", "": "", "a/b/c": "a"} {
		if got := tenantOfKey([]byte(key)); got != want {
			t.Errorf("tenantOfKey(%q) = %q, want %q", key, got, want)
		}
	}
}

// gateSink holds every Write until want writes are waiting at once (or a
// timeout passes), recording the most it saw.
type gateSink struct {
	transport.Sink
	want int
	mu   sync.Mutex
	now  int
	most int
	open chan struct{}
}

func (g *gateSink) Write(ctx context.Context, recs ...transport.Record) error {
	g.mu.Lock()
	g.now++
	g.most = max(g.most, g.now)
	if g.now == g.want {
		close(g.open)
	}
	g.mu.Unlock()
	select {
	case <-g.open:
	case <-time.After(5 * time.Second):
	}
	g.mu.Lock()
	g.now--
	g.mu.Unlock()
	return g.Sink.Write(ctx, recs...)
}

func TestRunnerWritesOffThePool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 3)
		g.cfg.Workers = 1
		g.produce(t, []string{"a/1", "b/1", "c/1"}, 1)
		gate := &gateSink{Sink: g.ready, want: 3, open: make(chan struct{})}
		g.ready = gate
		g.runToEnd(t, ProcessorFunc(echo))
		if gate.most != 3 {
			t.Fatalf("at most %d outputs were being written at once with one pool worker; writes must not hold a worker", gate.most)
		}
	})
}

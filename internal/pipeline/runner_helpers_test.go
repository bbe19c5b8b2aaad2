package pipeline

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/memory"
)

// rig is a memory broker with jobs, ready and dlq topics and a runner on them.
type rig struct {
	b     *memory.Broker
	reg   *prometheus.Registry
	m     *metrics.Metrics
	cfg   RunnerConfig
	jobs  *memory.Sink
	ready transport.Sink // tests may wrap it before calling runner
	dlq   transport.Sink
}

const (
	jobsTopic  = "jobs"
	readyTopic = "ready"
	dlqTopic   = "dlq"
	group      = "workers"
)

func newRig(t *testing.T, partitions int) *rig {
	t.Helper()
	b := memory.NewBroker()
	for _, name := range []string{jobsTopic, readyTopic, dlqTopic} {
		if err := b.CreateTopic(name, partitions); err != nil {
			t.Fatal(err)
		}
	}
	reg := prometheus.NewPedanticRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{
		b: b, reg: reg, m: m,
		jobs:  b.NewSink(memory.SinkConfig{Topic: jobsTopic, CompressAbove: -1}),
		ready: b.NewSink(memory.SinkConfig{Topic: readyTopic, MaxMessageBytes: 1 << 20, CompressAbove: -1}),
		dlq:   b.NewSink(memory.SinkConfig{Topic: dlqTopic, MaxMessageBytes: 1 << 20, CompressAbove: -1}),
		cfg: RunnerConfig{
			Workers: 4, MaxInflightJobs: 64, MaxInflightBytes: 1 << 20,
			RetryInitialBackoff: time.Millisecond, RetryMaxBackoff: 10 * time.Millisecond,
			ShutdownTimeout: 5 * time.Second,
		},
	}
}

// produce writes n jobs per key, values "key#i".
func (g *rig) produce(t *testing.T, keys []string, n int) int {
	t.Helper()
	var recs []transport.Record
	for i := range n {
		for _, k := range keys {
			recs = append(recs, transport.Record{Key: []byte(k), Value: fmt.Appendf(nil, "%s#%d", k, i)})
		}
	}
	if err := g.jobs.Write(context.Background(), recs...); err != nil {
		t.Fatal(err)
	}
	return len(recs)
}

// runner builds a runner reading the jobs topic to its end.
func (g *rig) runner(t *testing.T, p JobProcessor, onDone func(Done)) (*Runner, *memory.Source) {
	t.Helper()
	src, err := g.b.NewSource(memory.SourceConfig{Topic: jobsTopic, Group: group, EndOfInput: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close(context.Background()) })
	r, err := NewRunner(g.cfg, RunnerDeps{Source: src, Ready: g.ready, DLQ: g.dlq, Processor: p, Metrics: g.m, OnDone: onDone})
	if err != nil {
		t.Fatal(err)
	}
	return r, src
}

// runToEnd runs a runner over every job and fails t on a Run error.
func (g *rig) runToEnd(t *testing.T, p JobProcessor) {
	t.Helper()
	r, src := g.runner(t, p, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := r.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := src.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (g *rig) records(t *testing.T, topic string) []transport.Record {
	t.Helper()
	recs, err := g.b.Records(topic)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// committedAll reports whether the group committed every job.
func (g *rig) committedAll(t *testing.T, total int) bool {
	var sum int64
	for _, off := range g.b.Committed(jobsTopic, group) {
		sum += off
	}
	return sum == int64(total)
}

// echo is a processor whose payload is the job's value.
func echo(ctx context.Context, rec transport.Record) (Outcome, error) {
	return Outcome{Ready: true, Payload: rec.Value}, nil
}

// concurrency tracks how many calls run at once, overall and per tenant.
type concurrency struct {
	mu       sync.Mutex
	now, max int
	tenant   map[string]int
	tenantHi map[string]int
}

func (c *concurrency) enter(tenant string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tenant == nil {
		c.tenant, c.tenantHi = map[string]int{}, map[string]int{}
	}
	c.now++
	c.max = max(c.max, c.now)
	c.tenant[tenant]++
	c.tenantHi[tenant] = max(c.tenantHi[tenant], c.tenant[tenant])
}

func (c *concurrency) leave(tenant string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now--
	c.tenant[tenant]--
}

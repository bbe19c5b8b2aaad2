package pipeline

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/memory"
)

// BenchmarkRunnerNoOp is the runner's own cost per job: the memory
// transport, the no-op pipeline, 64 keys over 4 partitions.
func BenchmarkRunnerNoOp(b *testing.B) {
	br := memory.NewBroker()
	for _, name := range []string{jobsTopic, readyTopic, dlqTopic} {
		if err := br.CreateTopic(name, 4); err != nil {
			b.Fatal(err)
		}
	}
	recs := make([]transport.Record, b.N)
	for i := range recs {
		recs[i] = transport.Record{Key: fmt.Appendf(nil, "t%d/s%d", i%4, i%64), Value: []byte(`{"job_id":"x"}`)}
	}
	if err := br.NewSink(memory.SinkConfig{Topic: jobsTopic, CompressAbove: -1}).Write(context.Background(), recs...); err != nil {
		b.Fatal(err)
	}
	src, err := br.NewSource(memory.SourceConfig{Topic: jobsTopic, Group: group, EndOfInput: true})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close(context.Background())
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	r, err := NewRunner(RunnerConfig{
		Workers: 4, MaxInflightJobs: 1024, MaxInflightBytes: 1 << 28,
		RetryInitialBackoff: time.Millisecond, RetryMaxBackoff: time.Second, ShutdownTimeout: time.Minute,
	}, RunnerDeps{Source: src, Ready: br.NewSink(memory.SinkConfig{Topic: readyTopic, CompressAbove: -1}),
		DLQ: br.NewSink(memory.SinkConfig{Topic: dlqTopic, CompressAbove: -1}), Processor: NoOp, Metrics: m})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	if err := r.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
}

package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/pipeline/pipelinetest"
	"github.com/hygiene-dev/hygiene/internal/tracing"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// runInProcess runs a runner in this process on tp's topics of b with
// proc, until the returned func is called (it drains and closes everything).
func runInProcess(t *testing.T, b broker, tp topics, proc pipeline.JobProcessor) func() {
	t.Helper()
	kcfg := kafka.Config{Brokers: b.brokers()}
	src, err := kafka.NewSource(kafka.SourceConfig{Config: kcfg, Topic: tp.jobs, GroupID: tp.group, CommitInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sink := func(topic string, compressAbove int) *kafka.Sink {
		s, err := kafka.NewSink(kafka.SinkConfig{Config: kcfg, Topic: topic, MaxMessageBytes: 1_000_000, CompressAbove: compressAbove, BatchTimeout: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ready, dlq := sink(tp.ready, 64<<10), sink(tp.dlq, -1)
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	runner, err := pipeline.NewRunner(pipeline.RunnerConfigFrom(config.Default(), 2),
		pipeline.RunnerDeps{Source: src, Ready: ready, DLQ: dlq, Processor: proc, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runner.Run(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runner: %v", err)
		}
		for _, c := range []interface{ Close(context.Context) error }{ready, dlq, src} {
			if err := c.Close(context.Background()); err != nil {
				t.Errorf("closing: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return stop
}

// readN reads n records of topic from its start in a group of its own.
func readN(t *testing.T, b broker, topic string, n int) []transport.Record {
	t.Helper()
	src, err := kafka.NewSource(kafka.SourceConfig{Config: kafka.Config{Brokers: b.brokers()}, Topic: topic, GroupID: topic + ".reader"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out []transport.Record
	for len(out) < n {
		rec, ack, err := src.Read(ctx)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("read %d of %d records of %s in 60s", len(out), n, topic)
			}
			continue
		}
		_ = ack(ctx, nil)
		out = append(out, rec)
	}
	return out
}

// The traceparent and tracestate of a job record reach its ready record or
// dead letter through the real broker, and the job's spans are in the
// record's trace: the job span a child of the producer's span, one stage
// span per stage the job ran under it (a rule the runner skips has none;
// a rule that declares neither Needs nor On always runs).
func TestTraceContextPropagates(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b broker) {
		tp := newTopics(t, b)
		exp := tracetest.NewInMemoryExporter()
		provider := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		defer provider.Shutdown(context.Background())
		proc, chain := pipelinetest.Processor(t, config.Default())
		stop := runInProcess(t, b, tp, tracing.Processor{Next: proc, Tracer: provider.Tracer("it")})

		parent := map[string]string{} // job id -> traceparent
		var recs []transport.Record
		for i := range 4 {
			id := fmt.Sprintf("trace-%d", i)
			tpHeader := fmt.Sprintf("00-%032x-%016x-01", i+1, i+100)
			value := jobValue(id, "acme", "s"+id)
			if i == 3 {
				value = []byte(`{"job_id":"trace-3","tenant":"acme"}`) // a dead letter
			}
			recs = append(recs, transport.Record{Key: []byte("acme/s" + id), Value: value, Headers: []transport.Header{
				{Key: "traceparent", Value: []byte(tpHeader)}, {Key: "tracestate", Value: []byte("acme=" + id)}}})
			parent[id] = tpHeader
		}
		if err := newProducer(t, b, tp.jobs).write(context.Background(), recs...); err != nil {
			t.Fatal(err)
		}
		out := append(readN(t, b, tp.ready, 3), readN(t, b, tp.dlq, 1)...)
		stop()
		for _, rec := range out {
			id := jobID(rec)
			got, _ := rec.Header("traceparent")
			state, _ := rec.Header("tracestate")
			if string(got) != parent[id] || string(state) != "acme="+id {
				t.Errorf("%s on %s: traceparent %q tracestate %q, want %q and %q", id, rec.Topic, got, state, parent[id], "acme="+id)
			}
		}
		jobSpans := 0
		stageSpans := map[string]map[string]int{} // trace -> stage -> spans
		for _, s := range exp.GetSpans() {
			if s.Name == tracing.JobSpan {
				jobSpans++
				want := fmt.Sprintf("00-%s-%s-01", s.SpanContext.TraceID(), s.Parent.SpanID())
				found := false
				for _, p := range parent {
					found = found || p == want
				}
				if !found {
					t.Errorf("job span %s is not parented on any job's traceparent", want)
				}
			} else {
				trace := s.SpanContext.TraceID().String()
				if stageSpans[trace] == nil {
					stageSpans[trace] = map[string]int{}
				}
				stageSpans[trace][s.Name]++
			}
		}
		if jobSpans != 4 || len(stageSpans) != 3 {
			t.Errorf("%d job spans and stage spans in %d traces, want 4 and the 3 good jobs'", jobSpans, len(stageSpans))
		}
		for trace, spans := range stageSpans {
			for _, st := range chain {
				if n := spans[st.Name]; n > 1 || (n == 0 && st.Needs == 0 && st.On == nil) {
					t.Errorf("trace %s: %d spans of stage %s, want one per stage the job ran", trace, n, st.Name)
				}
				delete(spans, st.Name)
			}
			if len(spans) > 0 {
				t.Errorf("trace %s: stage spans %v not of the chain", trace, spans)
			}
		}
	})
}

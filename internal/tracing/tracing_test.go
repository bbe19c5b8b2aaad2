package tracing

import (
	"context"
	"os"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/pipeline/pipelinetest"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

const (
	traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	spanID  = "00f067aa0ba902b7"
)

// newTraced is the real processor wrapped in the job span, recording into
// an in-memory exporter, and the processor's rule chain.
func newTraced(t *testing.T) (Processor, *tracetest.InMemoryExporter, []stage.Stage) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	proc, chain := pipelinetest.Processor(t, config.Default())
	return Processor{Next: proc, Tracer: tp.Tracer("test")}, exp, chain
}

// A job with a traceparent gets a span in that trace, child of the
// caller's span, and one child span per stage it ran: a rule the runner
// skips (stage.Skipper: its guard is off, or the job lacks what it Needs)
// has none, and a rule that declares neither always runs.
func TestJobSpanJoinsTheRecordsTraceWithAChildPerStage(t *testing.T) {
	p, exp, chain := newTraced(t)
	job, err := os.ReadFile("../../examples/anthropic-damaged.json")
	if err != nil {
		t.Fatal(err)
	}
	rec := transport.Record{Value: job, Topic: "jobs", Offset: 7, Headers: []transport.Header{
		{Key: "Traceparent", Value: []byte("00-" + traceID + "-" + spanID + "-01")},
		{Key: "tracestate", Value: []byte("vendor=x")},
	}}
	out, err := p.Process(context.Background(), rec)
	if err != nil || !out.Ready {
		t.Fatalf("Process = %+v, %v", out, err)
	}
	spans := exp.GetSpans()
	var jobSpan *tracetest.SpanStub
	for i := range spans {
		if spans[i].Name == JobSpan {
			jobSpan = &spans[i]
		}
	}
	if jobSpan == nil {
		t.Fatalf("no %s span among %d", JobSpan, len(spans))
	}
	sc := jobSpan.SpanContext
	if sc.TraceID().String() != traceID || jobSpan.Parent.SpanID().String() != spanID || !jobSpan.Parent.IsRemote() {
		t.Fatalf("job span trace %s parent %s; want trace %s parent %s (remote)", sc.TraceID(), jobSpan.Parent.SpanID(), traceID, spanID)
	}
	if got := jobSpan.SpanContext.TraceState().Get("vendor"); got != "x" {
		t.Errorf("tracestate vendor = %q, want x", got)
	}
	if jobSpan.SpanKind != trace.SpanKindConsumer {
		t.Errorf("job span kind %v", jobSpan.SpanKind)
	}
	spanned := map[string]int{}
	for _, s := range spans {
		if s.Name != JobSpan {
			if s.Parent.SpanID() != sc.SpanID() || s.SpanContext.TraceID() != sc.TraceID() {
				t.Errorf("stage span %s is not a child of the job span", s.Name)
			}
			spanned[s.Name]++
		}
	}
	inChain := map[string]bool{}
	for _, st := range chain {
		inChain[st.Name] = true
		if always := st.Needs == 0 && st.On == nil; always && spanned[st.Name] != 1 {
			t.Errorf("rule %s always runs: %d spans, want 1", st.Name, spanned[st.Name])
		}
	}
	for name, n := range spanned {
		if !inChain[name] || n != 1 {
			t.Errorf("stage span %s: %d of them, in the chain %v; want one span per rule that ran", name, n, inChain[name])
		}
	}
	attrs := map[string]string{}
	for _, kv := range jobSpan.Attributes {
		attrs[string(kv.Key)] = kv.Value.String()
	}
	if attrs[AttrOutcome] != "ready" || attrs[AttrSource] != "jobs/0/7" || attrs[AttrTenant] == "" {
		t.Errorf("job span attributes %v", attrs)
	}
}

// A job without trace headers starts a trace of its own; a dead letter's
// span carries its code and an error status.
func TestJobWithoutTraceparentAndADeadLetter(t *testing.T) {
	p, exp, _ := newTraced(t)
	out, err := p.Process(context.Background(), transport.Record{Value: []byte(`{"job_id":`)})
	if err != nil || out.Ready {
		t.Fatalf("Process = %+v, %v", out, err)
	}
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].Name != JobSpan {
		t.Fatalf("spans %v; a job refused at decode has only its job span", spans)
	}
	s := spans[0]
	if s.Parent.IsValid() || !s.SpanContext.IsValid() {
		t.Errorf("a job without traceparent must be a root span, parent %v", s.Parent)
	}
	if s.Status.Description != "invalid_json" {
		t.Errorf("status %+v, want the dead-letter code", s.Status)
	}
}

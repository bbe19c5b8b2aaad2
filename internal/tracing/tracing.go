// Package tracing is the worker's optional OpenTelemetry tracer: one span
// per job ("hygiene.job"), parented on the W3C traceparent/tracestate
// headers of the job record, with one child span per stage (started by
// pipeline.Processor from the job span's context), exported over OTLP/HTTP.
// It is off by default (tracing.enabled); the trace headers are copied to
// the job's outputs whether or not it is on (package pipeline).
//
// May import: internal/config, internal/pipeline, internal/transport.
package tracing

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// JobSpan is the name of the span of one job.
const JobSpan = "hygiene.job"

// Span attributes of the job span.
const (
	AttrSource  = "hygiene.source" // topic/partition/offset of the job record
	AttrTenant  = "hygiene.tenant"
	AttrJobID   = "hygiene.job_id"
	AttrOutcome = "hygiene.outcome" // ready | dead_letter
	AttrCode    = "hygiene.error_code"
	AttrStage   = "hygiene.stage"
)

// Processor wraps a JobProcessor with the job span. The job runs with the
// span in its context, so the pipeline's stage spans are its children.
type Processor struct {
	Next   pipeline.JobProcessor
	Tracer trace.Tracer
}

// Process runs one job in its span, parented on the record's trace headers.
func (p Processor) Process(ctx context.Context, rec transport.Record) (pipeline.Outcome, error) {
	ctx = propagation.TraceContext{}.Extract(ctx, headerCarrier(rec.Headers))
	ctx, span := p.Tracer.Start(ctx, JobSpan, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String(AttrSource, rec.SourceRef())))
	defer span.End()
	out, err := p.Next.Process(ctx, rec)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "the job did not finish")
		return out, err
	}
	span.SetAttributes(attribute.String(AttrTenant, out.Tenant), attribute.String(AttrJobID, out.JobID))
	if out.Ready {
		span.SetAttributes(attribute.String(AttrOutcome, "ready"))
		return out, nil
	}
	span.SetAttributes(attribute.String(AttrOutcome, "dead_letter"), attribute.String(AttrCode, string(out.Code)), attribute.String(AttrStage, out.Stage))
	span.SetStatus(codes.Error, string(out.Code))
	return out, nil
}

// headerCarrier reads trace headers from record headers (the W3C
// propagator asks for lowercase names; a header is matched ignoring case).
type headerCarrier []transport.Header

func (c headerCarrier) Get(key string) string {
	for _, h := range c {
		if strings.EqualFold(h.Key, key) {
			return string(h.Value)
		}
	}
	return ""
}

// Set is not used: the worker only reads trace context.
func (c headerCarrier) Set(string, string) {}

// Keys lists the header names.
func (c headerCarrier) Keys() []string {
	keys := make([]string, len(c))
	for i, h := range c {
		keys[i] = h.Key
	}
	return keys
}

// NewProvider builds the tracer provider of cfg: OTLP/HTTP to
// cfg.Endpoint, batched, parent-based sampling with cfg.SampleRatio for new
// traces, and the service.name resource. The caller shuts it down (which
// flushes the spans still batched).
func NewProvider(ctx context.Context, cfg config.TracingConfig) (*sdktrace.TracerProvider, error) {
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpoint(cfg.Endpoint)}
	if cfg.Insecure {
		opts = append(opts, otlptracehttp.WithInsecure())
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("tracing: the OTLP exporter to %s: %w", cfg.Endpoint, err)
	}
	res := resource.NewSchemaless(semconv.ServiceName(cfg.ServiceName))
	return sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(cfg.SampleRatio))),
	), nil
}

// Package metrics names every Prometheus metric of the worker in one place.
// All names start with hygiene_ and every label has a bounded set of values
// (an outcome, a dead-letter code, a stage name). Metrics are registered on
// an injected prometheus.Registerer, never on the global default registry,
// so tests and several workers in one process do not collide.
//
// Counters and gauges the runner moves itself are fields of Metrics; values
// owned by another component (the Kafka reader's lag, the image processor's
// counters) are read at scrape time through the collectors RegisterSource and
// RegisterImages add.
//
// May import: no package of this module.
package metrics

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Namespace prefixes every metric name.
const Namespace = "hygiene"

// Job outcomes, the values of the outcome label of hygiene_jobs_total.
const (
	OutcomeReady      = "ready"
	OutcomeDeadLetter = "dead_letter"
)

// Metrics holds the metrics the pipeline runner moves.
type Metrics struct {
	// Jobs counts finished jobs by outcome (ready, dead_letter).
	Jobs *prometheus.CounterVec
	// DLQRecords counts dead-letter records by code.
	DLQRecords *prometheus.CounterVec
	// ContractViolations counts the violations of the target's contract
	// found by the final check, by rule (package contract's Rule* names).
	ContractViolations *prometheus.CounterVec
	// ContextFitTokens observes the request tokens of each job counted
	// over its model's context window, before the fit and after it
	// (label when: before, after; after only for a job written).
	ContextFitTokens *prometheus.HistogramVec
	// ContextFitTurnsDropped counts the user turns the fit left out.
	ContextFitTurnsDropped prometheus.Counter
	// JobDuration observes seconds from read to ack.
	JobDuration prometheus.Histogram
	// StageDuration observes seconds spent in each pipeline stage.
	StageDuration *prometheus.HistogramVec
	// PoolRunning, PoolWaiting and PoolCapacity describe the job pool:
	// jobs being processed on a worker, jobs read and not started yet, and
	// its size.
	PoolRunning, PoolWaiting, PoolCapacity prometheus.Gauge
	// InflightBytes and InflightJobs are the jobs read but not yet acked.
	InflightBytes, InflightJobs prometheus.Gauge
	// SinkRetries counts writes to the ready or dead-letter topic retried
	// after a transient error.
	SinkRetries prometheus.Counter
	// BytesIn counts record bytes read; BytesOut counts ready and
	// dead-letter bytes written (before compression).
	BytesIn, BytesOut prometheus.Counter
	// Operate holds the metrics of the HTTP source and the rate limits.
	Operate

	reg prometheus.Registerer
}

// tokenBuckets spans 8,192 to about 8.4M tokens, by doubling: context
// windows from the smallest to the 1M-token ones, and archives beyond them.
var tokenBuckets = prometheus.ExponentialBuckets(8192, 2, 11)

// durationBuckets spans 100µs to about 100s.
var durationBuckets = prometheus.ExponentialBuckets(0.0001, 4, 11)

// New creates the runner's metrics and registers them on reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		reg: reg,
		Jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "jobs_total",
			Help: "Jobs finished, by outcome (ready or dead_letter).",
		}, []string{"outcome"}),
		DLQRecords: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "dlq_records_total",
			Help: "Records written to the dead-letter topic, by error code.",
		}, []string{"code"}),
		ContractViolations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "contract_violations_total",
			Help: "Violations of the target's contract found in sanitized transcripts, by rule.",
		}, []string{"rule"}),
		ContextFitTokens: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "context_fit_tokens",
			Help:    "Request tokens of the jobs counted over their model's context window, before the fit and after it.",
			Buckets: tokenBuckets,
		}, []string{"when"}),
		ContextFitTurnsDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "context_fit_turns_dropped_total",
			Help: "User turns the context fit left out of histories to fit their model's context window.",
		}),
		JobDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "job_duration_seconds",
			Help:    "Time from reading a job to acknowledging it.",
			Buckets: durationBuckets,
		}),
		StageDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "stage_duration_seconds",
			Help:    "Time spent in one pipeline stage of one job.",
			Buckets: durationBuckets,
		}, []string{"stage"}),
		PoolRunning: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "pool_running",
			Help: "Jobs being processed on a pool worker now (writing their output does not hold a worker).",
		}),
		PoolWaiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "pool_waiting",
			Help: "Jobs read and not started yet: waiting for a pool worker, their tenant's share, or the job before them with the same key.",
		}),
		PoolCapacity: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "pool_capacity",
			Help: "Size of the job pool.",
		}),
		InflightBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "inflight_bytes",
			Help: "Bytes of jobs read and not yet acknowledged.",
		}),
		InflightJobs: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "inflight_jobs",
			Help: "Jobs read and not yet acknowledged.",
		}),
		SinkRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "sink_retries_total",
			Help: "Writes to the ready or dead-letter topic retried after a transient error.",
		}),
		BytesIn: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "bytes_in_total",
			Help: "Bytes of job records read (key, value and headers).",
		}),
		BytesOut: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "bytes_out_total",
			Help: "Bytes of ready and dead-letter records written, before compression.",
		}),
	}
	for _, c := range []prometheus.Collector{
		m.Jobs, m.DLQRecords, m.ContractViolations, m.ContextFitTokens, m.ContextFitTurnsDropped, m.JobDuration, m.StageDuration, m.PoolRunning, m.PoolWaiting,
		m.PoolCapacity, m.InflightBytes, m.InflightJobs, m.SinkRetries, m.BytesIn, m.BytesOut,
	} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: registering a collector: %w", err)
		}
	}
	if err := m.Operate.register(reg); err != nil {
		return nil, err
	}
	return m, nil
}

// CountViolations adds the contract violations of one job, by rule.
func (m *Metrics) CountViolations(byRule map[string]int) {
	for rule, n := range byRule {
		m.ContractViolations.WithLabelValues(rule).Add(float64(n))
	}
}

// ObserveContextFit records one job the context fit counted over its
// window: its tokens before, and after when it was written (written), and
// the user turns it dropped.
func (m *Metrics) ObserveContextFit(before, after, turnsDropped int, written bool) {
	m.ContextFitTokens.WithLabelValues("before").Observe(float64(before))
	if written {
		m.ContextFitTokens.WithLabelValues("after").Observe(float64(after))
	}
	m.ContextFitTurnsDropped.Add(float64(turnsDropped))
}

// StageObserver returns the function that records one duration of stage:
// the pipeline's stage observer (pipeline.Deps.Observe). The stage's
// histogram is looked up here, once per stage when the processor is made,
// not on every job: a label look-up hashes and checks the stage's name
// under a lock, and a small job runs some twenty rules.
func (m *Metrics) StageObserver(stage string) func(time.Duration) {
	h := m.StageDuration.WithLabelValues(stage)
	return func(d time.Duration) { h.Observe(d.Seconds()) }
}

package metrics

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Job sources, the values of the source label.
const (
	SourceKafka = "kafka"
	SourceHTTP  = "http"
)

// Reasons an HTTP request was refused before a job ran, the values of the
// reason label of hygiene_http_rejected_total.
const (
	RejectBusy         = "busy"         // 429: http.max_concurrent requests in progress
	RejectDraining     = "draining"     // 503: the worker is shutting down
	RejectTooLarge     = "too_large"    // 413: the body is over limits.max_compressed_bytes
	RejectBadRequest   = "bad_request"  // 400/405/415 before the job reached the pool
	RejectClientGone   = "client_gone"  // the client went away before its answer
	RejectUnauthorized = "unauthorized" // 401: no API key, or an unknown one
	RejectForbidden    = "forbidden"    // 403: the key is not bound to the job's tenant
)

// Operate is the metrics of the job sources and the per-tenant rate limits.
type Operate struct {
	// SourceJobs counts finished jobs by source (kafka, http) and outcome.
	SourceJobs *prometheus.CounterVec
	// SourceJobDuration observes seconds from admission to answer (http)
	// or acknowledgement (kafka), by source.
	SourceJobDuration *prometheus.HistogramVec
	// HTTPRejected counts requests refused before their job ran, by reason.
	HTTPRejected *prometheus.CounterVec
	// HTTPInProgress is the requests being read or processed now.
	HTTPInProgress prometheus.Gauge
	// RateLimitWaiting is the jobs waiting for their tenant's rate now.
	RateLimitWaiting prometheus.Gauge
	// RateLimitDelayed counts jobs that waited for their tenant's rate.
	RateLimitDelayed prometheus.Counter
	// RateLimitWaitSeconds adds up the time jobs waited for their tenant's rate.
	RateLimitWaitSeconds prometheus.Counter
}

func (o *Operate) register(reg prometheus.Registerer) error {
	o.SourceJobs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "source_jobs_total",
		Help: "Jobs finished, by source (kafka or http) and outcome (ready or dead_letter).",
	}, []string{"source", "outcome"})
	o.SourceJobDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Name: "source_job_duration_seconds",
		Help:    "Time from admitting a job to its answer (http) or acknowledgement (kafka), by source.",
		Buckets: durationBuckets,
	}, []string{"source"})
	o.HTTPRejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "http_rejected_total",
		Help: "POST /v1/sanitize requests refused before their job ran, by reason (busy, draining, too_large, bad_request, client_gone, unauthorized, forbidden).",
	}, []string{"reason"})
	o.HTTPInProgress = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "http_in_progress",
		Help: "POST /v1/sanitize requests being read or processed now.",
	})
	o.RateLimitWaiting = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "rate_limit_waiting",
		Help: "Jobs read and waiting for their tenant's rate limit before the pool.",
	})
	o.RateLimitDelayed = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: Namespace, Name: "rate_limit_delayed_total",
		Help: "Jobs that waited for their tenant's rate limit.",
	})
	o.RateLimitWaitSeconds = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: Namespace, Name: "rate_limit_wait_seconds_total",
		Help: "Seconds jobs spent waiting for their tenant's rate limit, added up.",
	})
	for _, c := range []prometheus.Collector{o.SourceJobs, o.SourceJobDuration, o.HTTPRejected, o.HTTPInProgress,
		o.RateLimitWaiting, o.RateLimitDelayed, o.RateLimitWaitSeconds} {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("metrics: registering a collector: %w", err)
		}
	}
	return nil
}

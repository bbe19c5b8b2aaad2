// Package httpapi serves POST /v1/sanitize: one job in the request body, its
// ready payload in the response, for runners that repair a history right
// before a model call and cannot wait for a Kafka round trip.
//
// It is one more source of the same runner: a request becomes a record that
// goes through the runner's in-flight budget, tenant rates, per-key order,
// pool and Processor (pipeline.Runner.Submit), so the HTTP path has the Kafka
// path's bounds and output bytes. Nothing is written to a topic.
//
// GET /openapi.json serves the OpenAPI document of the listener (package
// schemas, which bundles the job and payload schemas into it).
//
// Responses: 200 with the ready payload (application/json); 400 with
// {"code","error","stage"} for a bad job, the dead-letter code and sentence
// the Kafka path would give it (500 for internal_error); 413 over
// limits.max_compressed_bytes (or a payload_too_large job); 429 with
// Retry-After while http.max_concurrent requests are in progress; 503 with
// Retry-After while the worker drains. A body with Content-Encoding: zstd is
// decompressed within limits.max_job_bytes, as a record with that header is.
// The traceparent and tracestate request headers become the record's, so
// the job's spans join the caller's trace, and are echoed on the response.
//
// The record key, which picks the tenant (pool share, rate limits) and
// orders jobs of one session, is "tenant/session_id" read from the body as
// the Kafka producer writes it; a body that does not parse as a JSON object
// (a zstd one included) gets a key of its own and the empty tenant, and the
// Processor then gives it its dead-letter answer.
//
// Callers (http.auth): when keys are configured, a request must carry
// "Authorization: Bearer <key>" (401 without one or with a wrong one), and
// the key must be bound to the job's tenant (403 otherwise), so one
// tenant's key cannot spend another tenant's rate limits, pool share and
// settings. Both are counted (hygiene_http_rejected_total, reasons
// unauthorized and forbidden); no key is ever logged.
//
// May import: docs/schemas, internal/apikeys, internal/compression, internal/deadletter,
// internal/metrics, internal/pipeline, internal/transport.
package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	json "github.com/goccy/go-json"

	"github.com/hygiene-dev/hygiene/docs/schemas"
	"github.com/hygiene-dev/hygiene/internal/apikeys"
	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// Path is the endpoint's path.
const Path = "/v1/sanitize"

// OpenAPIPath is the path of the listener's OpenAPI document.
const OpenAPIPath = "/openapi.json"

// SourceTopic is the topic of records made from requests (their
// hygiene-source reads "http/0/N", N counting requests).
const SourceTopic = "http"

// Submitter runs one job and answers it; *pipeline.Runner is the real one.
type Submitter interface {
	Submit(ctx context.Context, rec transport.Record) (pipeline.Outcome, error)
	Draining() bool
}

// Config bounds the endpoint.
type Config struct {
	// MaxBodyBytes caps a request body (limits.max_compressed_bytes).
	MaxBodyBytes int64
	// MaxConcurrent caps requests read or processed at once.
	MaxConcurrent int
	// RetryAfter is the advice of a 429 or 503 response.
	RetryAfter time.Duration
	// ReadTimeout bounds reading one request body.
	ReadTimeout time.Duration
	// Keys authenticates callers; nil serves every caller (http.auth off).
	Keys *apikeys.Store
	// MaxJobBytes bounds the decompression of a zstd body whose tenant
	// must be read to check the caller's key (limits.max_job_bytes).
	MaxJobBytes int64
}

// Problem is the JSON body of every response that is not a ready payload.
type Problem struct {
	Code  string `json:"code"`
	Error string `json:"error"`
	Stage string `json:"stage,omitempty"`
}

// Codes of refusals that are not dead-letter codes.
const (
	CodeBusy         = "busy"
	CodeDraining     = "draining"
	CodeUnauthorized = "unauthorized" // 401: no API key, or one that is not valid
	CodeForbidden    = "forbidden"    // 403: the key is not bound to the job's tenant
)

type handler struct {
	cfg   Config
	sub   Submitter
	m     *metrics.Metrics
	log   *slog.Logger
	slots chan struct{}
	seq   atomic.Int64
}

// Handler returns the mux serving POST /v1/sanitize and GET /openapi.json.
func Handler(cfg Config, sub Submitter, m *metrics.Metrics, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &handler{cfg: cfg, sub: sub, m: m, log: log, slots: make(chan struct{}, max(cfg.MaxConcurrent, 1))}
	mux := http.NewServeMux()
	for pattern, route := range h.routes() {
		mux.Handle(pattern, route)
	}
	return mux
}

// routes are the handler's routes by pattern.
func (h *handler) routes() map[string]http.Handler {
	return map[string]http.Handler{
		"POST " + Path:       h,
		"GET " + OpenAPIPath: http.HandlerFunc(serveOpenAPI),
	}
}

// Routes lists the patterns Handler serves, sorted (the OpenAPI document
// lists each of them).
func Routes() []string { return slices.Sorted(maps.Keys((&handler{}).routes())) }

// serveOpenAPI answers the OpenAPI document.
func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	doc := schemas.OpenAPI()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
	_, _ = w.Write(doc)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	caller, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	default:
		h.refuse(w, http.StatusTooManyRequests, metrics.RejectBusy, CodeBusy,
			fmt.Sprintf("%d requests are in progress (http.max_concurrent); retry later", cap(h.slots)))
		return
	}
	// Reading the body is bounded per request, so a slow client holds its
	// slot for at most ReadTimeout.
	if h.cfg.ReadTimeout > 0 {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.cfg.ReadTimeout))
	}
	h.m.HTTPInProgress.Inc()
	defer h.m.HTTPInProgress.Dec()
	if h.sub.Draining() {
		h.refuse(w, http.StatusServiceUnavailable, metrics.RejectDraining, CodeDraining, "the worker is shutting down; retry on another")
		return
	}
	if r.ContentLength > h.cfg.MaxBodyBytes {
		h.tooLarge(w, r.ContentLength)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		h.tooLarge(w, -1)
		return
	case err != nil:
		// The client went away or was too slow (http.read_timeout); no
		// one reads an answer.
		h.m.HTTPRejected.WithLabelValues(metrics.RejectClientGone).Inc()
		h.log.Debug("reading a sanitize request failed", "remote", r.RemoteAddr, "err", err)
		return
	}
	key := keyOf(body)
	if h.cfg.Keys != nil && !h.mayPost(w, caller, r.Header.Get("Content-Encoding"), body, key) {
		return
	}
	rec := transport.Record{Key: key, Value: body, Topic: SourceTopic, Offset: h.seq.Add(1)}
	for _, name := range []string{pipeline.HeaderTraceparent, pipeline.HeaderTracestate} {
		if v := r.Header.Get(name); v != "" {
			rec.Headers = append(rec.Headers, transport.Header{Key: name, Value: []byte(v)})
			w.Header().Set(name, v)
		}
	}
	if enc := r.Header.Get("Content-Encoding"); enc != "" {
		rec.Headers = append(rec.Headers, transport.Header{Key: compression.HeaderContentEncoding, Value: []byte(strings.ToLower(enc))})
	}
	out, err := h.sub.Submit(r.Context(), rec)
	switch {
	case errors.Is(err, pipeline.ErrDraining):
		h.refuse(w, http.StatusServiceUnavailable, metrics.RejectDraining, CodeDraining, "the worker is shutting down; retry on another")
		return
	case r.Context().Err() != nil:
		h.m.HTTPRejected.WithLabelValues(metrics.RejectClientGone).Inc()
		return
	case err != nil:
		// The shutdown deadline ended the job.
		h.refuse(w, http.StatusServiceUnavailable, metrics.RejectDraining, CodeDraining, err.Error())
		return
	}
	if out.Ready {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(out.Payload)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(out.Payload)
		return
	}
	status := http.StatusBadRequest
	switch out.Code {
	case deadletter.CodePayloadTooLarge:
		status = http.StatusRequestEntityTooLarge
	case deadletter.CodeInternalError:
		status = http.StatusInternalServerError
	}
	writeProblem(w, status, Problem{Code: string(out.Code), Error: out.Error, Stage: out.Stage})
}

// authenticate checks the request's API key when Keys is set: 401 with a
// problem body when it has none or an unknown one. The key is never logged.
func (h *handler) authenticate(w http.ResponseWriter, r *http.Request) (apikeys.Caller, bool) {
	if h.cfg.Keys == nil {
		return apikeys.Caller{}, true
	}
	caller, err := h.cfg.Keys.Authenticate(r.Header.Get("Authorization"))
	if err != nil {
		if ferr := h.cfg.Keys.Err(); ferr != nil {
			h.log.Warn("re-reading the API keys failed; the keys read before stay in force", "err", ferr)
		}
		h.m.HTTPRejected.WithLabelValues(metrics.RejectUnauthorized).Inc()
		w.Header().Set("WWW-Authenticate", `Bearer realm="hygiene"`)
		writeProblem(w, http.StatusUnauthorized, Problem{Code: CodeUnauthorized, Error: err.Error()})
		return apikeys.Caller{}, false
	}
	return caller, true
}

// mayPost checks that caller's key is bound to the job's tenant, read from
// key ("tenant/session_id"), or from the decompressed body of a zstd one;
// else it answers 403. A body whose tenant cannot be read at all goes on:
// the Processor refuses it (invalid_json, decompression_failed, invalid_job)
// without running any tenant's work.
func (h *handler) mayPost(w http.ResponseWriter, caller apikeys.Caller, encoding string, body, key []byte) bool {
	if key == nil && compression.IsZstd(body, []byte(strings.ToLower(encoding))) {
		if plain, err := compression.Decode(body, []byte(strings.ToLower(encoding)), h.cfg.MaxJobBytes); err == nil {
			key = keyOf(plain)
		}
	}
	if key == nil {
		return true
	}
	tenant, _, _ := strings.Cut(string(key), "/")
	if caller.May(tenant) {
		return true
	}
	h.m.HTTPRejected.WithLabelValues(metrics.RejectForbidden).Inc()
	h.log.Info("a sanitize request for a tenant its API key is not bound to was refused", "key_name", caller.Name, "tenant", tenant)
	writeProblem(w, http.StatusForbidden, Problem{Code: CodeForbidden,
		Error: fmt.Sprintf("the API key %q may not post jobs for tenant %q", caller.Name, tenant)})
	return false
}

// tooLarge answers 413 for a body over MaxBodyBytes (n: its declared
// length, or -1 when it was cut off while read).
func (h *handler) tooLarge(w http.ResponseWriter, n int64) {
	msg := fmt.Sprintf("the request body is over limits.max_compressed_bytes %d", h.cfg.MaxBodyBytes)
	if n >= 0 {
		msg = fmt.Sprintf("the request body is %d bytes, over limits.max_compressed_bytes %d", n, h.cfg.MaxBodyBytes)
	}
	w.Header().Set("Connection", "close") // the rest of the body is not read
	h.m.HTTPRejected.WithLabelValues(metrics.RejectTooLarge).Inc()
	writeProblem(w, http.StatusRequestEntityTooLarge, Problem{Code: string(deadletter.CodePayloadTooLarge), Error: msg, Stage: pipeline.StageDecode})
}

// refuse answers a request no job ran for, with Retry-After.
func (h *handler) refuse(w http.ResponseWriter, status int, reason, code, msg string) {
	h.m.HTTPRejected.WithLabelValues(reason).Inc()
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(max(h.cfg.RetryAfter.Seconds(), 1)))))
	writeProblem(w, status, Problem{Code: code, Error: msg})
}

func writeProblem(w http.ResponseWriter, status int, p Problem) {
	body, _ := json.Marshal(p) // three strings always encode
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// keyOf is the record key "tenant/session_id" of a job body, or nil when
// the body does not parse as an object with those fields.
func keyOf(body []byte) []byte {
	var env struct {
		Tenant    string `json:"tenant"`
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Tenant == "" {
		return nil
	}
	return []byte(env.Tenant + "/" + env.SessionID)
}

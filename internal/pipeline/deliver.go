package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// Dead-letter record headers (design §2).
const (
	HeaderErrorCode = "hygiene-error-code"
	HeaderError     = "hygiene-error"
	HeaderStage     = "hygiene-stage"
	HeaderSource    = "hygiene-source"
	// HeaderOriginalBytes and HeaderOriginalSHA256 mark a stand-in dead
	// letter: the original value was too large for the dead-letter topic,
	// so the value holds only its first bytes; these give the original's
	// length and its sha256 (hex).
	HeaderOriginalBytes  = "hygiene-original-bytes"
	HeaderOriginalSHA256 = "hygiene-original-sha256"
)

// StageRunner names the runner itself in a dead letter: a panic outside any
// stage, or an output the ready topic refused.
const StageRunner = "runner"

// runJob is the pool task of one job: its outcome on the pool worker, then
// hand the outcome to a writer goroutine, which releases the job's key
// (done) once the job is finished.
func (r *Runner) runJob(j *job, done func()) {
	r.updateGauges()
	if j.reply != nil {
		r.answer(j, done)
		return
	}
	out, err := r.outcomeOf(j.rec)
	if err != nil {
		r.abandon(j, err)
		done()
		return
	}
	r.writers.Add(1)
	go func() {
		defer r.writers.Done()
		defer done()
		r.finish(j, out)
	}()
}

// finish writes the outcome of j durably, then acknowledges j. A transient
// write error is retried with backoff until it succeeds or the work context
// ends (then j is acknowledged with the error and delivered again); j is
// never acknowledged before its output is written. Writers run off the
// pool, so kafka-go batches the outputs of many jobs into one request; they
// are bounded by the in-flight job budget.
func (r *Runner) finish(j *job, out Outcome) {
	written, err := r.deliver(j.rec, &out)
	if err != nil {
		r.log.Warn("the job's output was not written; it will be delivered again", "source", j.rec.SourceRef(), "err", err)
		r.abandon(j, err)
		return
	}
	r.ackQuietly(j.rec, j.ack, nil)
	r.release(j)
	m := r.deps.Metrics
	m.JobDuration.Observe(time.Since(j.start).Seconds())
	m.BytesOut.Add(float64(written))
	m.SourceJobDuration.WithLabelValues(metrics.SourceKafka).Observe(time.Since(j.start).Seconds())
	m.SourceJobs.WithLabelValues(metrics.SourceKafka, outcomeLabel(out)).Inc()
	if out.Report != nil && out.Report.Contract != nil {
		m.CountViolations(out.Report.Contract.ByRule)
	}
	if out.Ready {
		m.Jobs.WithLabelValues(metrics.OutcomeReady).Inc()
	} else {
		m.Jobs.WithLabelValues(metrics.OutcomeDeadLetter).Inc()
		m.DLQRecords.WithLabelValues(string(out.Code)).Inc()
		r.log.Info("dead letter", "source", j.rec.SourceRef(), "code", out.Code, "stage", out.Stage, "error", out.Error)
	}
	if r.deps.OnDone != nil {
		r.deps.OnDone(Done{Record: j.rec, Outcome: out, Written: written})
	}
}

// outcomeOf is the runner's step that calls the Processor (whose Process is
// the job's own processing) on rec, turning a panic into an internal_error
// outcome so that one bad job cannot take the worker down.
func (r *Runner) outcomeOf(rec transport.Record) (out Outcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("the processor panicked", "source", rec.SourceRef(), "panic", p, "stack", string(debug.Stack()))
			out, err = Outcome{Code: transcript.CodeInternalError, Stage: StageRunner,
				Error: fmt.Sprintf("the job processor panicked: %v", p)}, nil
		}
	}()
	return r.deps.Processor.Process(r.work, rec)
}

// deliver writes out to the ready topic, or the record to the dead-letter
// topic, and returns the value bytes written. A ready payload the sink
// refuses as too large becomes an output_too_large dead letter (out is
// updated to say so).
func (r *Runner) deliver(rec transport.Record, out *Outcome) (int, error) {
	if out.Ready {
		payload := transport.Record{Key: rec.Key, Value: out.Payload, Headers: TraceHeaders(rec)}
		err := r.write(r.deps.Ready, payload)
		if err == nil {
			return len(out.Payload), nil
		}
		if !errors.Is(err, transport.ErrRecordTooLarge) {
			return 0, err
		}
		*out = Outcome{Code: transcript.CodeOutputTooLarge, Stage: StageRunner, Tenant: out.Tenant, JobID: out.JobID,
			Error: fmt.Sprintf("the ready payload of %d bytes is larger than the ready topic accepts: %v", len(out.Payload), err)}
	}
	dl := DeadLetter(rec, *out)
	err := r.write(r.deps.DLQ, dl)
	if errors.Is(err, transport.ErrRecordTooLarge) {
		// The original is kept byte for byte when it fits; when even the
		// dead-letter topic refuses it, a stand-in goes instead.
		dl = standIn(rec, *out, r.cfg.DeadLetterMaxBytes)
		err = r.write(r.deps.DLQ, dl)
	}
	return len(dl.Value), err
}

// standIn is the dead letter of rec for out cut down to maxBytes: the value
// is the original's first bytes (as many as fit beside the key and
// headers), the headers add the original's length and sha256,
// hygiene-source still names its offset, and hygiene-error says that the
// value is cut.
func standIn(rec transport.Record, out Outcome, maxBytes int) transport.Record {
	out.Error += fmt.Sprintf(" (the original value of %d bytes is larger than the dead-letter topic accepts; this value holds its first bytes, see %s and %s)",
		len(rec.Value), HeaderOriginalBytes, HeaderOriginalSHA256)
	dl := DeadLetter(rec, out)
	sum := sha256.Sum256(rec.Value)
	dl.Headers = append(dl.Headers,
		transport.Header{Key: HeaderOriginalBytes, Value: strconv.AppendInt(nil, int64(len(rec.Value)), 10)},
		transport.Header{Key: HeaderOriginalSHA256, Value: []byte(hex.EncodeToString(sum[:]))})
	dl.Value = nil
	room := maxBytes - dl.Size()
	dl.Value = rec.Value[:max(0, min(room, len(rec.Value)))]
	return dl
}

// DeadLetter builds the dead-letter record of rec: its key, its value byte
// for byte and its headers, plus the hygiene-error-code, hygiene-error,
// hygiene-stage and hygiene-source headers.
func DeadLetter(rec transport.Record, out Outcome) transport.Record {
	headers := make([]transport.Header, 0, 4+len(rec.Headers))
	headers = append(headers,
		transport.Header{Key: HeaderErrorCode, Value: []byte(out.Code)},
		transport.Header{Key: HeaderError, Value: []byte(out.Error)},
		transport.Header{Key: HeaderStage, Value: []byte(out.Stage)},
		transport.Header{Key: HeaderSource, Value: []byte(rec.SourceRef())},
	)
	headers = append(headers, rec.Headers...)
	return transport.Record{Key: rec.Key, Value: rec.Value, Headers: headers}
}

// write writes rec, retrying transient errors with exponential backoff until
// the work context ends. ErrRecordTooLarge and ErrClosed are returned at once.
func (r *Runner) write(sink transport.Sink, rec transport.Record) error {
	backoff := r.cfg.RetryInitialBackoff
	for {
		err := sink.Write(r.work, rec)
		if err == nil || errors.Is(err, transport.ErrRecordTooLarge) || errors.Is(err, transport.ErrClosed) {
			return err
		}
		if r.work.Err() != nil {
			return fmt.Errorf("pipeline: writing the output of key %q: %w (the shutdown ended the retries)", rec.Key, err)
		}
		r.deps.Metrics.SinkRetries.Inc()
		r.log.Warn("writing an output failed; retrying", "key", string(rec.Key), "err", err, "backoff", backoff)
		if err := sleep(r.work, backoff); err != nil {
			return fmt.Errorf("pipeline: writing the output of key %q: %w (the shutdown ended the retries)", rec.Key, err)
		}
		backoff = min(2*backoff, r.cfg.RetryMaxBackoff)
	}
}

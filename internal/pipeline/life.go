package pipeline

// A job's life, top to bottom. Each step is the function that does it, in
// the order a job meets them:
//
//	read      Runner.readLoop: an in-flight slot, the Source's Read, then
//	          Runner.enter, every source's one admission: the record's
//	          bytes, then Runner.admit (the tenant's rate)
//	schedule  scheduler.dispatch: behind the earlier jobs of its key; the
//	          scheduler's loop (scheduler.go) starts it on a pool worker
//	          within its tenant's share
//	process   Runner.runJob (the pool task) → Runner.outcomeOf →
//	          JobProcessor.Process (Processor.Process, process.go)
//	write     Runner.finish → Runner.deliver: the ready payload or the
//	          dead letter, durable, transient errors retried (Runner.write)
//	ack       Runner.finish → Runner.ackQuietly, only after the write, and
//	          Runner.release (the budget); a job not done is acknowledged
//	          with its error by Runner.abandon and delivered again
//
// A job submitted with Runner.Submit (submit.go) takes the same steps from
// Runner.enter on, except that its pool task is Runner.answer, which hands
// the outcome back instead of writing and acknowledging it. The scheduler's queues and gap
// fillers (scheduler.go), the budget (budget.go), the rates (admit.go), the
// dead-letter records (deliver.go) and the drain (Runner.run, runner.go) live in their
// own files.

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// job is one record between Read and its ack.
type job struct {
	rec    transport.Record
	ack    transport.AckFunc
	size   int64
	start  time.Time
	key    string
	tenant string
	source string // the metrics source label (metrics.SourceKafka, SourceHTTP)
	reply  *reply // set for a job submitted with Submit (submit.go)
	seq    uint64 // read order
}

// readLoop reads, budgets and dispatches until ctx ends or the Source stops,
// and returns why (never nil). Transient read errors are retried with
// backoff.
func (r *Runner) readLoop(ctx context.Context) error {
	backoff := r.cfg.RetryInitialBackoff
	for {
		if err := r.bud.acquireJob(ctx); err != nil {
			return err
		}
		rec, ack, err := r.deps.Source.Read(ctx)
		if err != nil {
			r.bud.release(1, 0)
			if ctx.Err() != nil || isStop(err) {
				return err
			}
			r.log.Warn("reading a job failed; retrying", "err", err, "backoff", backoff)
			if err := sleep(ctx, backoff); err != nil {
				return err
			}
			backoff = min(2*backoff, r.cfg.RetryMaxBackoff)
			continue
		}
		backoff = r.cfg.RetryInitialBackoff
		if _, err := r.enter(ctx, rec, ack, r.deps.SourceName, nil); err != nil {
			return err
		}
	}
}

// enter is the one admission of a job, whatever its source (readLoop,
// Submit), once the source holds an in-flight job slot for it: the
// record's bytes in the in-flight budget, then its tenant's rate (admit),
// labelled with its source for the metrics. rp is where the outcome goes
// instead of the sinks (nil for a job read from the Source). On an error
// the job is not admitted: its slot and bytes are freed and rec is
// acknowledged with the error (delivered again).
func (r *Runner) enter(ctx context.Context, rec transport.Record, ack transport.AckFunc, source string, rp *reply) (*job, error) {
	size := int64(rec.Size())
	if err := r.bud.acquireBytes(ctx, size); err != nil {
		r.bud.release(1, 0)
		r.ackQuietly(rec, ack, err)
		return nil, err
	}
	r.deps.Metrics.BytesIn.Add(float64(size))
	r.inflight.Add(1)
	j := &job{rec: rec, ack: ack, size: size, start: time.Now(), key: dispatchKey(rec), tenant: tenantOfKey(rec.Key),
		source: source, reply: rp, seq: r.seq.Add(1)}
	if err := r.admit(ctx, j); err != nil {
		r.abandon(j, err)
		return nil, err
	}
	r.updateGauges()
	return j, nil
}

// admit hands a job read (or submitted) to the dispatcher once its tenant
// is within its rates. A tenant over its rate waits here, off the pool and
// without holding up other tenants; only when MaxWaitingPerTenant of its
// jobs already wait does admit block, until one leaves or ctx ends (then it
// returns the error and j is the caller's to abandon). A job whose wait is
// ended by the shutdown is abandoned here (delivered again).
func (r *Runner) admit(ctx context.Context, j *job) error {
	if r.lim == nil {
		r.sch.dispatch(j)
		return nil
	}
	return r.lim.Admit(ctx, j.tenant, rateGroup(j.rec.PartitionOf()), j.size,
		func() { r.sch.dispatch(j); r.updateGauges() },
		func(err error) { r.abandon(j, err) })
}

// dispatch queues j behind every earlier job of its key.
func (s *scheduler) dispatch(j *job) {
	s.mu.Lock()
	kq, ok := s.keys[j.key]
	if !ok {
		kq = &keyQueue{key: j.key, tenant: j.tenant}
		s.keys[j.key] = kq
	}
	kq.jobs = append(kq.jobs, j)
	s.waiting++
	if !kq.running && len(kq.jobs) == 1 {
		s.makeRunnable(kq)
	}
	s.mu.Unlock()
	s.poke()
}

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

// outcomeOf is the runner's step that calls the Processor (whose Process is
// the job's own processing) on rec, turning a panic into an internal_error
// outcome so that one bad job cannot take the worker down.
func (r *Runner) outcomeOf(rec transport.Record) (out Outcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("the processor panicked", "source", rec.SourceRef(), "panic", p, "stack", string(debug.Stack()))
			out, err = Recovered(StageRunner, p), nil
		}
	}()
	return r.deps.Processor.Process(r.work, rec)
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
	observeSource(m, j, out)
	if out.Report != nil && out.Report.Contract != nil {
		m.CountViolations(out.Report.Contract.ByRule)
	}
	if out.Report != nil && out.Report.ContextFit != nil {
		f := out.Report.ContextFit
		m.ObserveContextFit(f.TokensBefore, f.TokensAfter, f.TurnsDropped, out.Ready)
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
	r.recycle(out)
}

// recycle gives the buffer of a ready payload written to a sink that copied
// it (a transport.Copier) to the payloads of the jobs that follow
// (payloadBuffers), once nothing reads it any more: finish calls it last,
// after OnDone, which must not keep the payload after it returned. A
// payload the processor did not make for the job (the no-op's is the
// record's value), or one a dead letter replaced, is left alone.
func (r *Runner) recycle(out Outcome) {
	if r.readyCopies {
		RecyclePayload(out)
	}
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
		*out = Outcome{Code: deadletter.CodeOutputTooLarge, Stage: StageRunner, Tenant: out.Tenant, JobID: out.JobID,
			Error: fmt.Sprintf("the ready payload of %d bytes is larger than the ready topic accepts: %v", len(out.Payload), err)}
	}
	letter := deadletter.Letter{Code: out.Code, Error: out.Error, Stage: out.Stage, Source: rec.SourceRef()}
	dl := deadletter.Record(rec, letter)
	err := r.write(r.deps.DLQ, dl)
	if errors.Is(err, transport.ErrRecordTooLarge) {
		// The original is kept byte for byte when it fits; when even the
		// dead-letter topic refuses it, a stand-in goes instead.
		dl = deadletter.StandIn(rec, letter, r.cfg.DeadLetterMaxBytes)
		err = r.write(r.deps.DLQ, dl)
	}
	return len(dl.Value), err
}

// ackQuietly acknowledges rec, logging an ack that fails.
func (r *Runner) ackQuietly(rec transport.Record, ack transport.AckFunc, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if ackErr := ack(ctx, err); ackErr != nil {
		r.log.Error("acknowledging a job failed", "source", rec.SourceRef(), "err", ackErr)
	}
}

// release frees j's budget once it is acknowledged.
func (r *Runner) release(j *job) {
	r.inflight.Add(-1)
	r.bud.release(1, j.size)
}

// abandon acknowledges j with err (it is not done and will be delivered
// again) and frees its budget.
func (r *Runner) abandon(j *job, err error) {
	r.ackQuietly(j.rec, j.ack, err)
	r.release(j)
}

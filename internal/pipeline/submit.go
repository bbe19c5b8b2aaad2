package pipeline

import (
	"context"
	"errors"
	"time"

	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// ErrDraining is returned by Submit once the runner stopped reading.
var ErrDraining = errors.New("pipeline: the worker is draining and takes no new jobs")

// reply is where a submitted job's outcome goes instead of the sinks.
type reply struct {
	ctx context.Context // the submitter's; once it ends the job is not run
	out chan Outcome    // buffered 1
}

// Submit runs one job through the same in-flight budget, tenant rates,
// per-key order and pool as the jobs the runner reads, and returns its
// Outcome instead of writing it to a topic (the synchronous HTTP source).
// Nothing is written and nothing is acknowledged: the caller owns the
// answer. It waits for budget, rate and pool while ctx lasts; a ctx that
// ends before the job starts leaves it unrun (ctx's error), and one that
// ends while it runs returns at once (the outcome is dropped). Once the
// runner drains, Submit returns ErrDraining; jobs submitted before that are
// part of the drain. The error is otherwise the work context's (the
// shutdown ended the job). Submit may be called before Run: the job then
// waits, like one waiting for a free worker, until Run starts the pool or
// ctx ends (a Runner never run answers nothing, and holds no goroutine for
// the waiting job).
func (r *Runner) Submit(ctx context.Context, rec transport.Record) (Outcome, error) {
	if err := r.bud.acquireJob(ctx); err != nil {
		return Outcome{}, err
	}
	// Checked after the slot is held, so a drain either waits for this job
	// or is seen here.
	if r.draining.Load() {
		r.bud.release(1, 0)
		return Outcome{}, ErrDraining
	}
	failed := make(chan error, 1)
	ack := func(_ context.Context, err error) error {
		if err != nil {
			failed <- err
		}
		return nil
	}
	rp := &reply{ctx: ctx, out: make(chan Outcome, 1)}
	j, err := r.enter(ctx, rec, ack, metrics.SourceHTTP, rp)
	if err != nil {
		return Outcome{}, err
	}
	select {
	case out := <-rp.out:
		observeSource(r.deps.Metrics, j, out)
		return out, nil
	case err := <-failed:
		return Outcome{}, err
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
}

// Draining reports whether the runner stopped taking jobs: false before
// Run, true from the moment Run stopped reading on.
func (r *Runner) Draining() bool { return r.draining.Load() }

// answer is the pool task of a submitted job: unless its submitter is
// gone, process it and hand the outcome back; then free its budget and key.
func (r *Runner) answer(j *job, done func()) {
	defer done()
	if err := j.reply.ctx.Err(); err != nil {
		r.abandon(j, err)
		return
	}
	out, err := r.outcomeOf(j.rec)
	if err != nil {
		r.abandon(j, err)
		return
	}
	j.reply.out <- out
	r.release(j)
}

// observeSource counts j's outcome and its time from admission under j's
// source label.
func observeSource(m *metrics.Metrics, j *job, out Outcome) {
	m.SourceJobDuration.WithLabelValues(j.source).Observe(time.Since(j.start).Seconds())
	m.SourceJobs.WithLabelValues(j.source, outcomeLabel(out)).Inc()
}

// outcomeLabel is the outcome label value of out.
func outcomeLabel(out Outcome) string {
	if out.Ready {
		return metrics.OutcomeReady
	}
	return metrics.OutcomeDeadLetter
}

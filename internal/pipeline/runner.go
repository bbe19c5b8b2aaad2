package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/ratelimit"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// JobProcessor turns one job record into its Outcome. *Processor is the real
// one; tests use fakes, and a no-op one measures the runner's ceiling. Its
// error is only ever the context's.
type JobProcessor interface {
	Process(ctx context.Context, rec transport.Record) (Outcome, error)
}

// RunnerConfig bounds a Runner.
type RunnerConfig struct {
	// Workers is the size of the job pool.
	Workers int
	// MaxInflightJobs and MaxInflightBytes cap the jobs read but not yet
	// acknowledged, counted in records and in record bytes.
	MaxInflightJobs  int
	MaxInflightBytes int64
	// TenantShare returns the largest share (0 < share <= 1) of the pool the
	// named tenant may hold; its cap is max(1, floor(share x Workers)).
	// Nil gives every tenant the whole pool.
	TenantShare func(tenant string) float64
	// DeadLetterMaxBytes is the largest dead letter the dead-letter sink
	// takes (kafka.max_message_bytes): a dead letter whose original is
	// larger goes as a stand-in of this size (see deadletter.StandIn); 0
	// makes the stand-in's value empty.
	DeadLetterMaxBytes int
	// RetryInitialBackoff and RetryMaxBackoff time the retries of a write
	// that failed with a transient error (doubling, capped).
	RetryInitialBackoff, RetryMaxBackoff time.Duration
	// ShutdownTimeout bounds the drain after Run's context ends. The drain
	// waits only for the jobs already started (at most Workers on the pool,
	// plus the writes of their outputs) and for the few that fill a gap
	// below started work of their partition (the fill and the drain share
	// the window);
	// every other job read but not started is released for redelivery. So
	// the window must hold about two of the slowest jobs and a write, and
	// the in-flight budget, however large, does not have to fit in it (see
	// docs/architecture.md, "Rebalances, commits and the drain").
	ShutdownTimeout time.Duration
	// TenantRates returns a tenant's admission rates (see admit.go); nil
	// or zero rates admit at once. MaxWaitingPerTenant caps the jobs of
	// one tenant waiting for its rate.
	TenantRates         func(tenant string) ratelimit.Rates
	MaxWaitingPerTenant int
}

// RunnerConfigFrom derives the runner's bounds from the worker configuration
// on a machine with the given number of cores.
func RunnerConfigFrom(cfg config.Config, cores int) RunnerConfig {
	return RunnerConfig{
		Workers:             cfg.Pipeline.PoolSize(cores),
		MaxInflightJobs:     cfg.Pipeline.MaxInflightJobs,
		MaxInflightBytes:    cfg.Pipeline.MaxInflightBytes,
		TenantShare:         cfg.PoolShareFor,
		DeadLetterMaxBytes:  int(cfg.Kafka.MaxMessageBytes),
		RetryInitialBackoff: cfg.Pipeline.RetryInitialBackoff,
		RetryMaxBackoff:     cfg.Pipeline.RetryMaxBackoff,
		ShutdownTimeout:     cfg.Pipeline.ShutdownTimeout,
		TenantRates:         tenantRates(cfg),
		MaxWaitingPerTenant: cfg.RateLimits.MaxWaitingJobs,
	}
}

func (c RunnerConfig) validate() error {
	switch {
	case c.Workers <= 0:
		return fmt.Errorf("pipeline: the job pool needs at least one worker, got %d", c.Workers)
	case c.MaxInflightJobs <= 0:
		return fmt.Errorf("pipeline: the in-flight job cap must be positive, got %d", c.MaxInflightJobs)
	case c.MaxInflightBytes <= 0:
		return fmt.Errorf("pipeline: the in-flight byte cap must be positive, got %d", c.MaxInflightBytes)
	case c.RetryInitialBackoff <= 0 || c.RetryMaxBackoff < c.RetryInitialBackoff:
		return fmt.Errorf("pipeline: retry backoff must be positive and its maximum (%s) at least its start (%s)", c.RetryMaxBackoff, c.RetryInitialBackoff)
	case c.ShutdownTimeout <= 0:
		return fmt.Errorf("pipeline: the shutdown timeout must be positive, got %s", c.ShutdownTimeout)
	}
	return nil
}

// RunnerDeps are the parts a Runner connects.
type RunnerDeps struct {
	Source transport.Source
	// SourceName is Source's value of the metrics source label (Submit's
	// jobs are metrics.SourceHTTP); "" means metrics.SourceKafka.
	SourceName string
	Ready      transport.Sink // ready payloads
	DLQ        transport.Sink // dead letters
	Processor  JobProcessor
	Metrics    *metrics.Metrics
	Logger     *slog.Logger
	// OnDone, when set, is called once per job after it was acknowledged
	// with a nil error (its output is durable). It must not keep
	// Outcome.Payload after it returned: the runner reuses its buffer.
	OnDone func(Done)
}

// Done describes one finished job.
type Done struct {
	Record  transport.Record
	Outcome Outcome
	// Written is the number of value bytes written to the ready or
	// dead-letter topic (before compression).
	Written int
}

// Runner moves jobs from a Source through a JobProcessor to the ready and
// dead-letter Sinks: the dispatcher keeps each key in offset order and runs
// keys in parallel on a bounded pool, the in-flight budget bounds jobs and
// bytes read but not acknowledged, and every output is durable before its
// input is acknowledged.
type Runner struct {
	cfg  RunnerConfig
	deps RunnerDeps
	bud  *budget
	sch  *scheduler
	log  *slog.Logger

	// work is the context of processing and writing; it outlives Run's
	// context by the shutdown drain.
	work       context.Context
	cancelWork context.CancelFunc
	runOnce    sync.Once
	// lim holds back tenants over their rate (nil: none is limited);
	// draining is set once reading stopped (Submit refuses then).
	lim      *ratelimit.Limiter
	draining atomic.Bool

	// inflight counts jobs read and not yet acknowledged (the budget also
	// holds the slot the reader reserves before each Read).
	inflight atomic.Int64
	// seq numbers jobs in read order (the scheduler starts older ones first).
	seq atomic.Uint64
	// readyCopies is set when the ready sink is a transport.Copier: a
	// written payload's buffer may then be reused (recycle).
	readyCopies bool
	gaugeMu     sync.Mutex     // makes each read-and-publish of the gauges atomic
	writers     sync.WaitGroup // finish goroutines
}

// NewRunner checks cfg and deps and assembles a Runner. It starts nothing:
// no pool, no goroutine, no read (a Runner never run holds nothing to
// release). Run starts and stops everything; a Runner is run once.
func NewRunner(cfg RunnerConfig, deps RunnerDeps) (*Runner, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if deps.Source == nil || deps.Ready == nil || deps.DLQ == nil || deps.Processor == nil || deps.Metrics == nil {
		return nil, errors.New("pipeline: a runner needs a source, a ready sink, a dead-letter sink, a processor and metrics")
	}
	if deps.SourceName == "" {
		deps.SourceName = metrics.SourceKafka
	}
	r := &Runner{cfg: cfg, deps: deps, bud: newBudget(cfg.MaxInflightJobs, cfg.MaxInflightBytes), log: deps.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	_, r.readyCopies = deps.Ready.(transport.Copier)
	r.work, r.cancelWork = context.WithCancel(context.Background())
	r.sch = newScheduler(cfg.Workers, r.tenantCap, r.runJob, r.updateGauges)
	r.lim = r.newLimiter()
	if rv, ok := deps.Source.(transport.Revoker); ok {
		rv.OnPause(r.pause)
		rv.OnRevoke(r.revoked)
	}
	deps.Metrics.PoolCapacity.Set(float64(cfg.Workers))
	return r, nil
}

// pause begins a rebalance: it starts only the jobs that fill a gap below
// work already started (see scheduler.nextGapFiller) and waits, until ctx
// ends, for the started ones to be written and acknowledged, so the
// Source's last commit before the partitions move covers them.
// It polls: a job may be read and dispatched meanwhile, which releases
// nothing that a wait on the budget would see.
func (r *Runner) pause(ctx context.Context) {
	r.sch.hold(true)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, waiting := r.sch.counts(); r.inflight.Load() <= int64(waiting) && !r.sch.hasGapFiller() {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// fillGaps starts only gap fillers (see scheduler.nextGapFiller) and waits
// until every queued one has started, or ctx ends. Unlike pause it does not
// wait for the started jobs to finish: the drain that follows does, within
// the same deadline, once the jobs that fill no gap are released.
func (r *Runner) fillGaps(ctx context.Context) {
	r.sch.hold(true)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for r.sch.gapFillersQueued() {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// revoked ends a rebalance: it drops the jobs not started of partitions the
// Source lost (their new owner reads them from the committed offset, so
// processing them here would only write duplicates), except the gap fillers
// below work already started, which run first (see
// scheduler.dropPartitions), and lets the scheduler
// start jobs again; it stopped when the rebalance began, so that no job of
// a partition about to move was started meanwhile. Jobs of lost partitions
// in progress finish and are written; their acks no longer commit anything.
func (r *Runner) revoked(parts []transport.Partition) {
	set := make(map[transport.Partition]bool, len(parts))
	for _, p := range parts {
		set[p] = true
	}
	r.revokeWaiting(parts)
	dropped := r.sch.dropPartitions(set)
	for _, j := range dropped {
		r.abandon(j, transport.ErrRevoked)
	}
	r.sch.hold(false)
	r.updateGauges()
	if len(parts) > 0 {
		r.log.Info("partitions revoked: dropped their jobs not started", "partitions", parts, "jobs", len(dropped))
	}
}

// errReleased acknowledges a job not started when the worker stops: it is
// not done, so it is delivered again (to this group's next owner of its
// partition).
var errReleased = errors.New("pipeline: the worker stopped before the job started; released for redelivery")

// tenantCap is the number of pool workers tenant may hold.
func (r *Runner) tenantCap(tenant string) int {
	if r.cfg.TenantShare == nil {
		return r.cfg.Workers
	}
	share := r.cfg.TenantShare(tenant)
	return max(1, min(r.cfg.Workers, int(share*float64(r.cfg.Workers))))
}

// Healthy reports whether the pool and its dispatcher are up: false before
// Run starts them and after Run stopped them.
func (r *Runner) Healthy() bool { return r.sch.healthy() }

// Run starts the pool and its dispatcher, then reads and processes jobs
// until ctx ends or a finite Source reports the end of its input. Then it
// drains: it stops reading; at the end of a finite input it runs every job
// read, but once ctx ends (a shutdown) it runs only the jobs that fill a gap
// below started work of their partition (so that work gets committed) and
// releases every other job not started (acknowledged with an error, so it
// is delivered again); it lets every started job finish (output written,
// input acknowledged) within RunnerConfig.ShutdownTimeout, acknowledges
// unfinished ones with an error once that time is up, and stops the
// dispatcher and releases the pool: nothing Run started outlives it. It
// does not close the Source or the Sinks: the caller does that next (the
// Source's Close commits and leaves the group). Run returns nil after a
// drain that finished every started job (releasing unstarted work is on
// purpose, not a failure), or an error naming what did not finish.
func (r *Runner) Run(ctx context.Context) error {
	err := errors.New("pipeline: a Runner runs once")
	r.runOnce.Do(func() { err = r.run(ctx) })
	return err
}

func (r *Runner) run(ctx context.Context) error {
	if err := r.sch.launch(); err != nil {
		r.draining.Store(true)
		r.cancelWork()
		for _, j := range r.sch.drainQueued() { // jobs submitted before Run
			r.abandon(j, err)
		}
		return err
	}
	readErr := r.readLoop(ctx)
	r.draining.Store(true)
	r.releaseWaiting(readErr)
	if errors.Is(readErr, transport.ErrEndOfInput) {
		_ = r.bud.drained(ctx) // a finite input runs to its end, unless a shutdown comes first
	}
	// Before releasing, fill the gaps below started work: that work is then
	// committed, not repeated by the partition's next owner. Filling and
	// the drain share one deadline, so a long fill is not cut short while
	// the drain window has room.
	drainCtx, cancel := context.WithTimeout(context.Background(), r.cfg.ShutdownTimeout)
	defer cancel()
	r.fillGaps(drainCtx)
	unstarted := r.sch.drainQueued()
	for _, j := range unstarted {
		r.abandon(j, errReleased)
	}
	released := len(unstarted)
	r.updateGauges()
	jobs, _ := r.bud.inUse()
	r.log.Info("draining: reading stopped; jobs not started are released for redelivery, started ones finish",
		"reason", readErr, "released", released, "started", jobs, "timeout", r.cfg.ShutdownTimeout)
	drainErr := r.bud.drained(drainCtx)
	if drainErr != nil {
		jobs, bytes := r.bud.inUse()
		r.log.Warn("the shutdown timeout ended the drain; unfinished jobs will be delivered again", "jobs", jobs, "bytes", bytes)
	}
	r.cancelWork()
	for _, j := range r.sch.drainQueued() {
		r.abandon(j, context.Canceled)
	}
	stopCtx, cancelStop := context.WithTimeout(context.Background(), r.cfg.ShutdownTimeout)
	defer cancelStop()
	stopErr := r.sch.stop(stopCtx)
	r.writers.Wait() // quick: the work context is cancelled
	r.updateGauges()
	if drainErr != nil {
		return fmt.Errorf("pipeline: draining the jobs in flight: %w", drainErr)
	}
	if stopErr != nil {
		return fmt.Errorf("pipeline: releasing the job pool: %w", stopErr)
	}
	if !isStop(readErr) { // readLoop returns only when reading ended, never nil
		return readErr
	}
	return nil
}

// isStop reports whether err is a normal end of reading.
func isStop(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, transport.ErrEndOfInput) || errors.Is(err, transport.ErrClosed)
}

// dispatchKey is the ordering key of rec: its key, or, for a keyless record
// (which has no order to keep), its own position.
func dispatchKey(rec transport.Record) string {
	if len(rec.Key) == 0 {
		return "\x00" + rec.SourceRef()
	}
	return string(rec.Key)
}

// tenantOfKey reads the tenant from a record key "tenant/session_id"
// without decoding the value; a key without '/' is all tenant.
func tenantOfKey(key []byte) string {
	s := string(key)
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i]
	}
	return s
}

// updateGauges publishes the pool and budget levels.
func (r *Runner) updateGauges() {
	r.gaugeMu.Lock()
	defer r.gaugeMu.Unlock()
	running, waiting := r.sch.counts()
	_, bytes := r.bud.inUse()
	m := r.deps.Metrics
	m.PoolRunning.Set(float64(running))
	m.PoolWaiting.Set(float64(waiting))
	m.InflightJobs.Set(float64(r.inflight.Load()))
	m.InflightBytes.Set(float64(bytes))
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// timeoutOf is the time left before ctx's deadline (a second without one).
func timeoutOf(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d), time.Millisecond)
	}
	return time.Second
}

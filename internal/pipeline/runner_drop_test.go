package pipeline

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/memory"
)

// TestSchedulerStartsTheOldestJobFirst: after key A's first job, A's second
// job (read before B's and C's) starts before them, so A's partition is not
// pinned behind every other runnable key.
func TestSchedulerStartsTheOldestJobFirst(t *testing.T) {
	gate := make(chan struct{})
	var mu sync.Mutex
	var order []uint64
	finished := make(chan struct{}, 8)
	sch := newScheduler(1, func(string) int { return 1 }, func(j *job, done func()) {
		if j.seq == 1 {
			<-gate
		}
		mu.Lock()
		order = append(order, j.seq)
		mu.Unlock()
		done()
		finished <- struct{}{}
	}, func() {})
	if err := sch.launch(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		key string
		seq uint64
	}{{"t/a", 1}, {"t/a", 2}, {"t/b", 3}, {"t/c", 4}} {
		sch.dispatch(&job{key: d.key, tenant: "t", seq: d.seq})
	}
	close(gate)
	for range 4 {
		<-finished
	}
	if err := sch.stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []uint64{1, 2, 3, 4}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("jobs ran in read order %v, want %v", order, want)
		}
	}
}

// revokingSource is a memory Source that can revoke partitions on demand.
type revokingSource struct {
	*memory.Source
	mu    sync.Mutex
	fn    []func([]transport.Partition)
	pause []func(context.Context)
}

func (s *revokingSource) OnRevoke(fn func([]transport.Partition)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fn = append(s.fn, fn)
}

func (s *revokingSource) OnPause(fn func(context.Context)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pause = append(s.pause, fn)
}

// rebalance pauses the consumer (waiting at most until ctx ends), then
// revokes parts.
func (s *revokingSource) rebalance(ctx context.Context, parts ...transport.Partition) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, fn := range s.pause {
		fn(ctx)
	}
	for _, fn := range s.fn {
		fn(parts)
	}
}

// TestRunnerDropsJobsOfRevokedPartitions: while one job runs, every
// partition is revoked. The jobs not started are not processed and not
// acknowledged as done (the next run gets them); the running one finishes
// and is written.
func TestRunnerDropsJobsOfRevokedPartitions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 2)
		g.cfg.Workers = 1
		total := g.produce(t, []string{"a/1", "b/1", "c/1"}, 4)
		started := make(chan struct{}, total)
		release := make(chan struct{})
		var processed atomic.Int64
		p := ProcessorFunc(func(ctx context.Context, rec transport.Record) (Outcome, error) {
			if processed.Add(1) == 1 {
				started <- struct{}{}
				<-release
			}
			return echo(ctx, rec)
		})
		mem, err := g.b.NewSource(memory.SourceConfig{Topic: jobsTopic, Group: group, EndOfInput: true})
		if err != nil {
			t.Fatal(err)
		}
		src := &revokingSource{Source: mem}
		r, err := NewRunner(g.cfg, RunnerDeps{Source: src, Ready: g.ready, DLQ: g.dlq, Processor: p, Metrics: g.m})
		if err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { errc <- r.Run(context.Background()) }()
		<-started
		// Wait until the budget holds everything (the reader has read all jobs).
		synctest.Wait() // the reader has read every job; nothing else can move
		if jobs, _ := r.bud.inUse(); jobs < total {
			t.Fatalf("%d of %d jobs read", jobs, total)
		}
		// The running job outlasts the pause: it is still in progress when its
		// partition is revoked.
		pauseCtx, cancelPause := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancelPause()
		src.rebalance(pauseCtx, transport.Partition{Topic: jobsTopic, Partition: 0}, transport.Partition{Topic: jobsTopic, Partition: 1})
		close(release)
		if err := <-errc; err != nil {
			t.Fatalf("Run: %v", err)
		}
		if err := src.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := processed.Load(); n != 1 {
			t.Fatalf("%d jobs were processed after their partitions were revoked while one ran; want 1", n)
		}
		if n := len(g.records(t, readyTopic)); n != 1 {
			t.Fatalf("%d outputs, want the one job in progress", n)
		}
		// The next owner (here: the next run of the group) gets every dropped job.
		g.runToEnd(t, ProcessorFunc(echo))
		if n := len(g.records(t, readyTopic)); n < total {
			t.Fatalf("%d outputs after the next owner ran, want at least %d", n, total)
		}
		if !g.committedAll(t, total) {
			t.Fatal("the group did not commit every job after the next run")
		}
	})
}

// TestRunnerShutdownReleasesJobsNotStarted: on shutdown with a full queue,
// Run returns nil as soon as the started job is done, without processing
// the queued ones; they are not committed, so the next run delivers them.
func TestRunnerShutdownReleasesJobsNotStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 2)
		g.cfg.Workers = 1
		total := g.produce(t, []string{"a/1", "b/1", "c/1"}, 10)
		started := make(chan struct{}, total)
		var processed atomic.Int64
		ctx, cancel := context.WithCancel(context.Background())
		var r *Runner
		p := ProcessorFunc(func(pctx context.Context, rec transport.Record) (Outcome, error) {
			if processed.Add(1) == 1 {
				started <- struct{}{}
				<-ctx.Done() // SIGTERM arrives while the first job runs
				// It ends after the drain released the queued jobs. The
				// release comes once the reader has stopped, which takes
				// time on the bubble's clock (the source's poll), so the
				// job sleeps that clock, not the wall's, until it has.
				for _, waiting := r.sch.counts(); waiting > 0; _, waiting = r.sch.counts() {
					time.Sleep(time.Millisecond)
				}
			}
			return echo(pctx, rec)
		})
		r, src := g.runner(t, p, nil)
		errc := make(chan error, 1)
		go func() { errc <- r.Run(ctx) }()
		<-started
		synctest.Wait() // the reader has read every job; nothing else can move
		if jobs, _ := r.bud.inUse(); jobs < total {
			t.Fatalf("%d of %d jobs read", jobs, total)
		}
		cancel()
		if err := <-errc; err != nil {
			t.Fatalf("Run after a drain that released queued jobs = %v, want nil", err)
		}
		if err := src.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := processed.Load(); n != 1 {
			t.Fatalf("%d jobs processed during the drain; want only the one started before the shutdown", n)
		}
		if g.committedAll(t, total) {
			t.Fatal("the released jobs were committed")
		}
		g.runToEnd(t, ProcessorFunc(echo))
		if n := len(g.records(t, readyTopic)); n < total {
			t.Fatalf("%d outputs after the next run, want at least %d", n, total)
		}
	})
}

// TestRunnerStartsNothingDuringARebalance: between the Source's pause and
// the end of the rebalance no job starts; a rebalance that took nothing
// away lets every queued job run.
func TestRunnerStartsNothingDuringARebalance(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 2)
		g.cfg.Workers = 1
		total := g.produce(t, []string{"a/1", "b/1"}, 5)
		mem, err := g.b.NewSource(memory.SourceConfig{Topic: jobsTopic, Group: group, EndOfInput: true})
		if err != nil {
			t.Fatal(err)
		}
		src := &revokingSource{Source: mem}
		var processed atomic.Int64
		r, err := NewRunner(g.cfg, RunnerDeps{Source: src, Ready: g.ready, DLQ: g.dlq, Metrics: g.m,
			Processor: ProcessorFunc(func(ctx context.Context, rec transport.Record) (Outcome, error) {
				processed.Add(1)
				return echo(ctx, rec)
			})})
		if err != nil {
			t.Fatal(err)
		}
		src.mu.Lock()
		for _, fn := range src.pause {
			fn(context.Background())
		}
		src.mu.Unlock()
		errc := make(chan error, 1)
		go func() { errc <- r.Run(context.Background()) }()
		synctest.Wait() // the reader has read every job; nothing else can move
		if jobs, _ := r.bud.inUse(); jobs < total {
			t.Fatalf("%d of %d jobs read before the check", jobs, total)
		}
		if n := processed.Load(); n != 0 {
			t.Fatalf("%d jobs started while a rebalance was in progress", n)
		}
		src.mu.Lock()
		for _, fn := range src.fn {
			fn(nil)
		}
		src.mu.Unlock()
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		if n := processed.Load(); n != int64(total) {
			t.Fatalf("%d of %d jobs processed after the rebalance ended", n, total)
		}
		_ = src.Close(context.Background())
	})
}

// TestRunnerPauseWaitsForStartedJobs: the pause returns once the started
// job is written and acknowledged, and no other job starts meanwhile.
func TestRunnerPauseWaitsForStartedJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, 1)
		g.cfg.Workers = 1
		total := g.produce(t, []string{"a/1", "b/1"}, 3)
		mem, err := g.b.NewSource(memory.SourceConfig{Topic: jobsTopic, Group: group, EndOfInput: true})
		if err != nil {
			t.Fatal(err)
		}
		src := &revokingSource{Source: mem}
		started := make(chan struct{}, total)
		release := make(chan struct{})
		var processed atomic.Int64
		r, err := NewRunner(g.cfg, RunnerDeps{Source: src, Ready: g.ready, DLQ: g.dlq, Metrics: g.m,
			Processor: ProcessorFunc(func(ctx context.Context, rec transport.Record) (Outcome, error) {
				if processed.Add(1) == 1 {
					started <- struct{}{}
					<-release
				}
				return echo(ctx, rec)
			})})
		if err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { errc <- r.Run(context.Background()) }()
		<-started
		paused := make(chan struct{})
		go func() {
			src.mu.Lock()
			for _, fn := range src.pause {
				fn(context.Background())
			}
			src.mu.Unlock()
			close(paused)
		}()
		synctest.Wait() // the pause waits for the started job, and nothing else can move
		select {
		case <-paused:
			t.Fatal("the pause returned while a started job was still running")
		default:
		}
		close(release)
		<-paused
		if n := len(g.records(t, readyTopic)); n != 1 || processed.Load() != 1 {
			t.Fatalf("after the pause: %d outputs, %d jobs processed; want the one started job written and nothing else", n, processed.Load())
		}
		src.rebalance(context.Background())
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		_ = src.Close(context.Background())
	})
}

// TestSchedulerHeldStartsOnlyGapFillers: while held, a job below an offset
// of its partition already started runs (it unblocks that partition's
// commit); a job above it waits.
func TestSchedulerHeldStartsOnlyGapFillers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		var mu sync.Mutex
		var ran []int64
		finished := make(chan struct{}, 8)
		sch := newScheduler(1, func(string) int { return 2 }, func(j *job, done func()) {
			if j.rec.Offset == 5 {
				<-gate
			}
			mu.Lock()
			ran = append(ran, j.rec.Offset)
			mu.Unlock()
			done()
			finished <- struct{}{}
		}, func() {})
		if err := sch.launch(); err != nil {
			t.Fatal(err)
		}
		at := func(key string, offset int64, seq uint64) *job {
			return &job{key: key, tenant: "t", seq: seq, rec: transport.Record{Topic: "jobs", Partition: 0, Offset: offset}}
		}
		sch.dispatch(at("t/x", 5, 1))
		synctest.Wait() // offset 5 has started and waits at the gate
		if running, _ := sch.counts(); running != 1 {
			t.Fatalf("%d jobs running, want offset 5", running)
		}
		sch.hold(true)
		sch.dispatch(at("t/y", 3, 2))
		sch.dispatch(at("t/z", 7, 3))
		if !sch.hasGapFiller() {
			t.Fatal("offset 3, below the started offset 5, is not a gap filler")
		}
		close(gate)
		<-finished
		<-finished
		if left := sch.drainQueued(); len(left) != 1 || left[0].rec.Offset != 7 {
			t.Fatalf("while held, the queue kept %v; want only offset 7", left)
		}
		if err := sch.stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(ran) != 2 || ran[0] != 5 || ran[1] != 3 {
			t.Fatalf("ran offsets %v, want [5 3]", ran)
		}
	})
}

// TestSchedulerRevokeKeepsGapFillers: when a partition is revoked, a job
// below an offset of it already started stays queued (it fills the gap, so
// the hand-off's last commit covers the started work above it), and the
// jobs above the highest started offset are dropped.
func TestSchedulerRevokeKeepsGapFillers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		sch := newScheduler(1, func(string) int { return 2 }, func(j *job, done func()) {
			if j.rec.Offset == 5 {
				<-gate
			}
			done()
		}, func() {})
		if err := sch.launch(); err != nil {
			t.Fatal(err)
		}
		at := func(key string, partition int, offset int64, seq uint64) *job {
			return &job{key: key, tenant: "t", seq: seq, rec: transport.Record{Topic: "jobs", Partition: partition, Offset: offset}}
		}
		sch.dispatch(at("t/x", 0, 5, 1))
		synctest.Wait() // offset 5 has started and waits at the gate
		sch.hold(true)
		sch.dispatch(at("t/y", 0, 3, 2)) // below 5: a gap filler
		sch.dispatch(at("t/z", 0, 7, 3)) // above 5
		sch.dispatch(at("t/w", 1, 2, 4)) // another partition, not revoked
		dropped := sch.dropPartitions(map[transport.Partition]bool{{Topic: "jobs", Partition: 0}: true})
		if len(dropped) != 1 || dropped[0].rec.Offset != 7 {
			t.Fatalf("revoking partition 0 dropped %v; want only offset 7", offsets(dropped))
		}
		close(gate)
		synctest.Wait()
		if err := sch.stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

func offsets(jobs []*job) []int64 {
	var out []int64
	for _, j := range jobs {
		out = append(out, j.rec.Offset)
	}
	return out
}

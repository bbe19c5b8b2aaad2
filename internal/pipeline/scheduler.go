package pipeline

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/panjf2000/ants/v2"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// scheduler is the dispatcher in front of the job pool. Jobs with the same
// key run one at a time in the order they were dispatched (offset order, as
// a key lives on one partition); jobs with different keys run in parallel
// on a bounded ants pool. A tenant never holds more pool workers than its
// cap, and tenants with runnable work take turns for free workers, so one
// busy tenant cannot starve the others.
//
// Within a tenant, the runnable key whose next job was read first starts
// first (not the key that became runnable first). This is what keeps
// commits moving: a partition commits only below its oldest unfinished
// job, and a key that just finished a job has its next job (often the
// oldest of its partition) queued; first-in-first-out over keys would put
// it behind every other runnable key, pinning its partition's commit point
// for as long as the whole queue takes.
//
// A pool worker is held only while a job is processed (CPU work); writing
// its output happens off the pool, while its key stays held so the next job
// of the key waits for the write. The task tells the scheduler when the key
// may move on through the done func it receives.
//
// Submits to the pool happen on the scheduler's own goroutine, never from
// inside a pool task, so a full pool can never deadlock on itself.
type scheduler struct {
	pool      *ants.Pool
	capacity  int
	tenantCap func(tenant string) int
	run       func(j *job, done func()) // the task body; it must not panic, and calls done once, now or later
	changed   func()                    // called after a job finished, outside the lock

	mu       sync.Mutex
	running  int
	waiting  int
	keys     map[string]*keyQueue
	tenants  map[string]*tenantQueue
	turns    []string // tenants with runnable keys, in round-robin order
	stopping bool
	held     bool // start only gap fillers (a rebalance or the shutdown is in progress)
	// maxStarted is the highest offset started per partition.
	maxStarted map[transport.Partition]int64
	wake       chan struct{} // buffered 1: something changed
	done       chan struct{} // closed when the loop has returned
}

// keyQueue holds the jobs of one key not yet finished.
type keyQueue struct {
	key     string
	tenant  string
	jobs    []*job
	running bool
}

// tenantQueue holds one tenant's keys that have a job ready to start.
type tenantQueue struct {
	name     string
	cap      int
	running  int
	runnable keyHeap // keys with a job ready to start, oldest job first
	queued   bool    // present in scheduler.turns
}

// keyHeap orders runnable keys by the read order of their next job.
type keyHeap []*keyQueue

func (h keyHeap) Len() int           { return len(h) }
func (h keyHeap) Less(i, j int) bool { return h[i].jobs[0].seq < h[j].jobs[0].seq }
func (h keyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }

// Push and Pop implement heap.Interface.
func (h *keyHeap) Push(x any) { *h = append(*h, x.(*keyQueue)) }

func (h *keyHeap) Pop() any {
	old := *h
	kq := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return kq
}

// newScheduler assembles a scheduler of workers pool workers; it starts
// nothing (launch does). Jobs dispatched before launch wait in the queues.
func newScheduler(workers int, tenantCap func(string) int, run func(*job, func()), changed func()) *scheduler {
	return &scheduler{
		capacity: workers, tenantCap: tenantCap, run: run, changed: changed,
		keys: map[string]*keyQueue{}, tenants: map[string]*tenantQueue{}, maxStarted: map[transport.Partition]int64{},
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
}

// launch creates the pool and starts the loop, which starts any job
// dispatched before; a scheduler is launched once, and stop ends it.
func (s *scheduler) launch() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pool != nil || s.stopping {
		return errors.New("pipeline: the scheduler is launched once")
	}
	pool, err := ants.NewPool(s.capacity)
	if err != nil {
		return fmt.Errorf("pipeline: creating the job pool of %d workers: %w", s.capacity, err)
	}
	s.pool = pool
	go s.loop()
	s.poke()
	return nil
}

// The way into the scheduler, dispatch, is in life.go with the rest of a
// job's steps.

// makeRunnable puts kq in its tenant's queue; the caller holds s.mu.
func (s *scheduler) makeRunnable(kq *keyQueue) {
	tq, ok := s.tenants[kq.tenant]
	if !ok {
		tq = &tenantQueue{name: kq.tenant, cap: s.tenantCap(kq.tenant)}
		s.tenants[kq.tenant] = tq
	}
	heap.Push(&tq.runnable, kq)
	if !tq.queued && tq.running < tq.cap {
		tq.queued = true
		s.turns = append(s.turns, tq.name)
	}
}

// next takes the next job allowed to start, or nil; the caller holds s.mu.
func (s *scheduler) next() (*job, *keyQueue) {
	if s.running >= s.capacity {
		return nil, nil
	}
	if s.held {
		return s.nextGapFiller()
	}
	for len(s.turns) > 0 {
		name := s.turns[0]
		s.turns = s.turns[1:]
		tq, ok := s.tenants[name]
		if !ok { // a gap filler took its last key, and its job is done
			continue
		}
		tq.queued = false
		if len(tq.runnable) == 0 || tq.running >= tq.cap { // a gap filler took its last key, or its room
			s.requeue(tq)
			continue
		}
		kq := heap.Pop(&tq.runnable).(*keyQueue)
		if len(tq.runnable) > 0 && tq.running+1 < tq.cap {
			tq.queued = true
			s.turns = append(s.turns, name)
		}
		return s.start(tq, kq), kq
	}
	return nil, nil
}

// start takes kq's first job to run; the caller holds s.mu and has taken
// kq out of tq's runnable keys.
func (s *scheduler) start(tq *tenantQueue, kq *keyQueue) *job {
	j := kq.jobs[0]
	kq.jobs[0] = nil // the backing array outlives the slice: keep no finished job (and its record) alive
	kq.jobs = kq.jobs[1:]
	kq.running = true
	tq.running++
	s.running++
	s.waiting--
	if p := j.rec.PartitionOf(); j.rec.Offset > s.maxStarted[p] {
		s.maxStarted[p] = j.rec.Offset
	}
	return j
}

// nextGapFiller is next while the scheduler is held: the oldest runnable
// job whose partition has a later job started already. Its partition's
// commit point is stuck at it, so running it lets the commit cover the
// later jobs' work before the partition moves (a rebalance) or the worker
// stops; any other job would only be more work for the next owner to
// repeat. The caller holds s.mu.
func (s *scheduler) nextGapFiller() (*job, *keyQueue) {
	tq, i := s.findGapFiller()
	if tq == nil {
		return nil, nil
	}
	kq := heap.Remove(&tq.runnable, i).(*keyQueue)
	return s.start(tq, kq), kq
}

// findGapFiller returns the tenant and runnable-heap index of the oldest
// gap filler (see nextGapFiller), or nil; the caller holds s.mu.
func (s *scheduler) findGapFiller() (*tenantQueue, int) {
	var best *tenantQueue
	bestIndex := -1
	for _, tq := range s.tenants {
		if tq.running >= tq.cap {
			continue
		}
		for i, kq := range tq.runnable {
			j := kq.jobs[0]
			started, ok := s.maxStarted[j.rec.PartitionOf()]
			if !ok || j.rec.Offset >= started {
				continue
			}
			if best == nil || j.seq < best.runnable[bestIndex].jobs[0].seq {
				best, bestIndex = tq, i
			}
		}
	}
	return best, bestIndex
}

// hasGapFiller reports whether a gap filler is waiting to run.
func (s *scheduler) hasGapFiller() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	tq, _ := s.findGapFiller()
	return tq != nil
}

// gapFillersQueued reports whether any job not started lies below an
// offset of its partition already started: one the drain should still
// start, whether or not it can start now (its key may be busy, or its
// tenant at its share of the pool).
func (s *scheduler) gapFillersQueued() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, kq := range s.keys {
		for _, j := range kq.jobs {
			if started, ok := s.maxStarted[j.rec.PartitionOf()]; ok && j.rec.Offset < started {
				return true
			}
		}
	}
	return false
}

// releaseWorker records that a job of tenant left its pool worker; the
// caller holds s.mu.
func (s *scheduler) releaseWorker(tenant string) {
	s.running--
	tq := s.tenants[tenant]
	tq.running--
	s.requeue(tq)
}

// releaseKey records that kq's job is done, so its next job may start; the
// caller holds s.mu.
func (s *scheduler) releaseKey(kq *keyQueue) {
	kq.running = false
	if len(kq.jobs) > 0 {
		s.makeRunnable(kq)
	} else {
		delete(s.keys, kq.key)
	}
	if tq, ok := s.tenants[kq.tenant]; ok {
		s.requeue(tq)
	}
}

// requeue gives tq a turn when it has runnable keys and room under its
// cap, and forgets an idle tenant; the caller holds s.mu.
func (s *scheduler) requeue(tq *tenantQueue) {
	if !tq.queued && len(tq.runnable) > 0 && tq.running < tq.cap {
		tq.queued = true
		s.turns = append(s.turns, tq.name)
	}
	if tq.running == 0 && len(tq.runnable) == 0 {
		delete(s.tenants, tq.name)
	}
}

// loop submits startable jobs to the pool until stop.
func (s *scheduler) loop() {
	defer close(s.done)
	for range s.wake {
		for {
			s.mu.Lock()
			if s.stopping {
				s.mu.Unlock()
				return
			}
			j, kq := s.next()
			s.mu.Unlock()
			if j == nil {
				break
			}
			// The pool has a free worker or one about to return (our count
			// says so), so Submit waits at most for that worker.
			if err := s.pool.Submit(func() { s.execute(j, kq) }); err != nil {
				// Only a released pool refuses; the job runs here instead
				// so that it is still acknowledged exactly once.
				s.execute(j, kq)
			}
		}
	}
}

func (s *scheduler) execute(j *job, kq *keyQueue) {
	var once sync.Once
	s.run(j, func() {
		once.Do(func() {
			s.mu.Lock()
			s.releaseKey(kq)
			s.mu.Unlock()
			s.poke()
			s.changed()
		})
	})
	s.mu.Lock()
	s.releaseWorker(kq.tenant)
	s.mu.Unlock()
	s.poke()
	s.changed()
}

func (s *scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// counts returns the jobs on a worker and the jobs waiting for one.
func (s *scheduler) counts() (running, waiting int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running, s.waiting
}

// healthy reports whether the scheduler loop and the pool are up: false
// before launch and after stop.
func (s *scheduler) healthy() bool {
	s.mu.Lock()
	pool := s.pool
	s.mu.Unlock()
	if pool == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return !pool.IsClosed()
	}
}

// stop ends the loop and releases the pool, waiting for running tasks until
// ctx ends. Jobs still queued are not started; the caller acknowledges them.
// A scheduler never launched has nothing to stop (and cannot launch after).
func (s *scheduler) stop(ctx context.Context) error {
	s.mu.Lock()
	s.stopping = true
	pool := s.pool
	s.mu.Unlock()
	if pool == nil {
		return nil
	}
	s.poke()
	<-s.done
	return pool.ReleaseTimeout(timeoutOf(ctx))
}

// hold makes the scheduler start only gap fillers (held; see
// nextGapFiller) or every job again; running jobs are not affected.
func (s *scheduler) hold(held bool) {
	s.mu.Lock()
	s.held = held
	s.mu.Unlock()
	s.poke()
}

// drainQueued removes and returns every job not started.
func (s *scheduler) drainQueued() []*job {
	return s.remove(func(*job) bool { return true })
}

// dropPartitions removes and returns the jobs not started that were read
// from one of parts, except their gap fillers: a job below an offset of its
// partition already started stays queued and runs next (the scheduler
// starts the oldest first), as it would on a drain. The Source hands a
// partition that moves off only once its records in flight are done (see
// transport.Revoker), so its last commit then covers the finished work
// above the gap; dropping the gap filler instead would stop that commit at
// it, and the partition's new owner would repeat every finished job above.
func (s *scheduler) dropPartitions(parts map[transport.Partition]bool) []*job {
	s.mu.Lock()
	started := make(map[transport.Partition]int64, len(parts))
	for p := range parts {
		if offset, ok := s.maxStarted[p]; ok {
			started[p] = offset
		}
		delete(s.maxStarted, p)
	}
	s.mu.Unlock()
	return s.remove(func(j *job) bool {
		p := j.rec.PartitionOf()
		if !parts[p] {
			return false
		}
		offset, ok := started[p]
		return !ok || j.rec.Offset >= offset
	})
}

// remove takes the jobs not started for which drop holds out of the queues
// and returns them; keys left without work are forgotten.
func (s *scheduler) remove(drop func(*job) bool) []*job {
	s.mu.Lock()
	var out []*job
	for key, kq := range s.keys {
		kept := kq.jobs[:0]
		for _, j := range kq.jobs {
			if drop(j) {
				out = append(out, j)
			} else {
				kept = append(kept, j)
			}
		}
		clear(kq.jobs[len(kept):])
		kq.jobs = kept
		if len(kq.jobs) == 0 && !kq.running {
			delete(s.keys, key)
		}
	}
	s.waiting -= len(out)
	for _, tq := range s.tenants {
		runnable := tq.runnable[:0]
		for _, kq := range tq.runnable {
			if len(kq.jobs) > 0 {
				runnable = append(runnable, kq)
			}
		}
		clear(tq.runnable[len(runnable):])
		tq.runnable = runnable
		heap.Init(&tq.runnable)
	}
	turns := s.turns[:0]
	for _, name := range s.turns {
		tq, ok := s.tenants[name]
		switch {
		case !ok:
		case len(tq.runnable) > 0:
			turns = append(turns, name)
		default:
			tq.queued = false
		}
	}
	s.turns = turns
	for _, tq := range s.tenants {
		if !tq.queued && tq.running == 0 && len(tq.runnable) == 0 {
			delete(s.tenants, tq.name)
		}
	}
	s.mu.Unlock()
	s.poke()
	return out
}

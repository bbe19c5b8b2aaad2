package pipeline

import (
	"context"
	"fmt"
	"sync"

	"github.com/panjf2000/ants/v2"
)

// scheduler is the dispatcher in front of the job pool. Jobs with the same
// key run one at a time in the order they were dispatched (offset order, as
// a key lives on one partition); jobs with different keys run in parallel
// on a bounded ants pool. A tenant never holds more pool workers than its
// cap, and tenants with runnable work take turns for free workers, so one
// busy tenant cannot starve the others.
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
	wake     chan struct{} // buffered 1: something changed
	done     chan struct{} // closed when the loop has returned
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
	runnable []*keyQueue
	queued   bool // present in scheduler.turns
}

func newScheduler(workers int, tenantCap func(string) int, run func(*job, func()), changed func()) (*scheduler, error) {
	pool, err := ants.NewPool(workers)
	if err != nil {
		return nil, fmt.Errorf("pipeline: creating the job pool of %d workers: %w", workers, err)
	}
	s := &scheduler{
		pool: pool, capacity: workers, tenantCap: tenantCap, run: run, changed: changed,
		keys: map[string]*keyQueue{}, tenants: map[string]*tenantQueue{},
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	go s.loop()
	return s, nil
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

// makeRunnable puts kq in its tenant's queue; the caller holds s.mu.
func (s *scheduler) makeRunnable(kq *keyQueue) {
	tq, ok := s.tenants[kq.tenant]
	if !ok {
		tq = &tenantQueue{name: kq.tenant, cap: s.tenantCap(kq.tenant)}
		s.tenants[kq.tenant] = tq
	}
	tq.runnable = append(tq.runnable, kq)
	if !tq.queued && tq.running < tq.cap {
		tq.queued = true
		s.turns = append(s.turns, tq.name)
	}
}

// next takes the next job allowed to start, or nil; the caller holds s.mu.
func (s *scheduler) next() (*job, *keyQueue) {
	if s.running >= s.capacity || len(s.turns) == 0 {
		return nil, nil
	}
	name := s.turns[0]
	s.turns = s.turns[1:]
	tq := s.tenants[name]
	tq.queued = false
	kq := tq.runnable[0]
	tq.runnable = tq.runnable[1:]
	j := kq.jobs[0]
	kq.jobs = kq.jobs[1:]
	kq.running = true
	tq.running++
	s.running++
	s.waiting--
	if len(tq.runnable) > 0 && tq.running < tq.cap {
		tq.queued = true
		s.turns = append(s.turns, name)
	}
	return j, kq
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

// healthy reports whether the scheduler loop and the pool are up.
func (s *scheduler) healthy() bool {
	select {
	case <-s.done:
		return false
	default:
		return !s.pool.IsClosed()
	}
}

// stop ends the loop and releases the pool, waiting for running tasks until
// ctx ends. Jobs still queued are not started; the caller acknowledges them.
func (s *scheduler) stop(ctx context.Context) error {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.poke()
	<-s.done
	return s.pool.ReleaseTimeout(timeoutOf(ctx))
}

// drainQueued removes and returns every job not started.
func (s *scheduler) drainQueued() []*job {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*job
	for _, kq := range s.keys {
		out = append(out, kq.jobs...)
		kq.jobs = nil
	}
	s.waiting = 0
	s.turns = nil
	for _, tq := range s.tenants {
		tq.runnable, tq.queued = nil, false
	}
	return out
}

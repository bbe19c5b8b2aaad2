// Package fanout runs the chunks of one large job in parallel on a bounded
// set of helper goroutines that all jobs of the worker share
// (pipeline.fanout_workers), above a size threshold
// (pipeline.fanout_min_messages; a job's decode from pipeline.fanout_min_bytes).
// It implements stage.Fanout.
//
// Bounds: a job holds its one job-pool worker as before and never submits
// to the job pool, so nothing can deadlock on it. Helpers are taken without
// waiting: when none is free, the job's own goroutine runs every chunk, so
// a job's progress never depends on another job. The CPU a worker uses is
// therefore bounded by pipeline.workers + pipeline.fanout_workers
// goroutines; no job ever waits for a helper, so one huge job cannot delay
// another tenant's job beyond sharing the cores with at most
// fanout_workers extra goroutines (the job pool's per-tenant share is
// unchanged). A job's chunks work on the bytes it already holds, so they
// add nothing to the in-flight byte budget.
//
// May import: no package of this module.
package fanout

import "sync"

// Pool is a bounded set of helper goroutines shared by every job. Its zero
// value is not usable; New makes one.
type Pool struct {
	tokens      chan struct{}
	minMessages int
	minBytes    int
}

// New returns a pool of at most helpers helper goroutines that splits
// histories of at least minMessages messages; minMessages 0 never splits.
func New(helpers, minMessages int) *Pool {
	return &Pool{tokens: make(chan struct{}, max(helpers, 0)), minMessages: minMessages}
}

// WithMinBytes sets the job size from which ChunksForBytes splits (0, the
// default, never splits) and returns p. Call it before the pool is used.
func (p *Pool) WithMinBytes(minBytes int) *Pool {
	p.minBytes = minBytes
	return p
}

// Chunks returns one chunk per helper plus one for the job's own goroutine
// when n reaches the threshold, else 1.
func (p *Pool) Chunks(n int) int { return p.chunks(n, p.minMessages) }

// ChunksForBytes is Chunks for a job of n bytes, against the byte
// threshold (WithMinBytes).
func (p *Pool) ChunksForBytes(n int) int { return p.chunks(n, p.minBytes) }

func (p *Pool) chunks(n, threshold int) int {
	if threshold <= 0 || n < threshold || cap(p.tokens) == 0 {
		return 1
	}
	return cap(p.tokens) + 1
}

// Run calls f(0) ... f(k-1), each once: the caller's goroutine and every
// helper free at the start take the next chunk not yet taken until none is
// left. It returns when all have returned; a helper's panic is raised again
// here, so the processor's recovery names the stage as for a sequential run.
func (p *Pool) Run(k int, f func(chunk int)) {
	var (
		mu     sync.Mutex
		next   int
		failed any
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= k || failed != nil {
			return 0, false
		}
		next++
		return next - 1, true
	}
	// work runs chunks until none is left; a panic stops every runner
	// at its next chunk and is kept to be raised again.
	work := func() {
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				failed = r
				mu.Unlock()
			}
		}()
		for {
			i, ok := take()
			if !ok {
				return
			}
			f(i)
		}
	}
	var wg sync.WaitGroup
helpers:
	for range k - 1 {
		select {
		case p.tokens <- struct{}{}:
			wg.Go(func() {
				defer func() { <-p.tokens }()
				work()
			})
		default:
			break helpers // no helper free: the caller runs the rest
		}
	}
	work()
	wg.Wait()
	if failed != nil {
		panic(failed)
	}
}

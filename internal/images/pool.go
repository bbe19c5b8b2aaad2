package images

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/davidbyttow/govips/v2/vips"
	"golang.org/x/sync/semaphore"
)

// pool runs libvips work on a fixed set of workers, each on its own locked
// OS thread, bounded by worker count and by a budget of decoded bytes. It
// is separate from any job pool, so a job task waiting here never waits
// for a slot of its own pool.
type pool struct {
	tasks  chan *task
	quit   chan struct{}
	wg     sync.WaitGroup
	budget *semaphore.Weighted
	limit  int64

	running, waiting, decodedInUse atomic.Int64
}

// task is one unit of libvips work and the bytes it reserved.
type task struct {
	fn   func()
	need int64
	done chan struct{}
}

// newPool starts workers goroutines sharing a decode budget of limit bytes.
func newPool(workers int, limit int64) *pool {
	p := &pool{
		tasks:  make(chan *task),
		quit:   make(chan struct{}),
		budget: semaphore.NewWeighted(limit),
		limit:  limit,
	}
	p.wg.Add(workers)
	for range workers {
		go p.worker()
	}
	return p
}

// worker runs tasks on a locked OS thread until the pool closes, starting
// libvips (Startup) before its first task. The thread stays locked when
// the goroutine exits, so the Go runtime ends it after
// vips.ShutdownThread has freed its libvips per-thread state (a worker
// that ran no task has none).
func (p *pool) worker() {
	defer p.wg.Done()
	runtime.LockOSThread()
	ran := false
	defer func() {
		if ran {
			vips.ShutdownThread()
		}
	}()
	for {
		select {
		case <-p.quit:
			return
		case t := <-p.tasks:
			if !ran {
				Startup()
				ran = true
			}
			p.running.Add(1)
			t.fn()
			p.running.Add(-1)
			p.decodedInUse.Add(-t.need)
			p.budget.Release(t.need)
			close(t.done)
		}
	}
}

// do runs fn on a worker after reserving need bytes of the decode budget
// (need must not exceed the limit). It returns ctx's error or ErrClosed if
// fn could not run; once fn has started, an ended ctx stops the wait, not fn.
func (p *pool) do(ctx context.Context, need int64, fn func()) error {
	p.waiting.Add(1)
	if err := p.budget.Acquire(ctx, need); err != nil {
		p.waiting.Add(-1)
		return err
	}
	p.decodedInUse.Add(need)
	t := &task{fn: fn, need: need, done: make(chan struct{})}
	select {
	case p.tasks <- t:
		p.waiting.Add(-1)
	case <-ctx.Done():
		p.abandon(need)
		return ctx.Err()
	case <-p.quit:
		p.abandon(need)
		return ErrClosed
	}
	select {
	case <-t.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// abandon returns the budget of a task that never reached a worker.
func (p *pool) abandon(need int64) {
	p.waiting.Add(-1)
	p.decodedInUse.Add(-need)
	p.budget.Release(need)
}

// close stops the workers after their current task and waits for them.
func (p *pool) close() {
	close(p.quit)
	p.wg.Wait()
}

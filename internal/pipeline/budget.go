package pipeline

import (
	"context"
	"sync"
)

// budget caps the jobs and bytes read but not yet acknowledged. A record
// larger than the whole byte budget is admitted alone (when nothing else is
// in flight), so an oversize record cannot stall the runner; it is then
// refused by the processor's own limits.
type budget struct {
	maxJobs  int
	maxBytes int64

	mu      sync.Mutex
	jobs    int
	bytes   int64
	changed chan struct{} // closed and replaced on every release
}

func newBudget(maxJobs int, maxBytes int64) *budget {
	return &budget{maxJobs: maxJobs, maxBytes: maxBytes, changed: make(chan struct{})}
}

// acquireJob takes one job slot, blocking while every slot is taken.
func (b *budget) acquireJob(ctx context.Context) error {
	return b.wait(ctx, func() bool {
		if b.jobs >= b.maxJobs {
			return false
		}
		b.jobs++
		return true
	})
}

// acquireBytes takes n bytes, blocking while they do not fit.
func (b *budget) acquireBytes(ctx context.Context, n int64) error {
	return b.wait(ctx, func() bool {
		if b.bytes > 0 && b.bytes+n > b.maxBytes {
			return false
		}
		b.bytes += n
		return true
	})
}

// wait runs take under the lock until it succeeds or ctx ends.
func (b *budget) wait(ctx context.Context, take func() bool) error {
	for {
		b.mu.Lock()
		if take() {
			b.mu.Unlock()
			return nil
		}
		changed := b.changed
		b.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release returns jobs slots and n bytes.
func (b *budget) release(jobs int, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.jobs -= jobs
	b.bytes -= n
	close(b.changed)
	b.changed = make(chan struct{})
}

// inUse returns the jobs and bytes held now.
func (b *budget) inUse() (int, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.jobs, b.bytes
}

// drained blocks until nothing is held or ctx ends.
func (b *budget) drained(ctx context.Context) error {
	return b.wait(ctx, func() bool { return b.jobs == 0 && b.bytes == 0 })
}

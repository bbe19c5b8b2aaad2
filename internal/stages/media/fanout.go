package media

import (
	"context"
	"sync"
	"sync/atomic"
)

// fanOut calls fn(ctx, i) for every i in [0, n) on at most limit goroutines
// (limit < 1 counts as 1) and waits for them. Each call writes its own
// result slot, so the order of completion never shows in the output. The
// first error cancels the context of the remaining calls; fanOut returns
// that error.
func fanOut(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	if n == 0 {
		return nil
	}
	workers := min(max(1, limit), n)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, i); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}

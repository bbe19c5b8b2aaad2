package media

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestFanOutBoundsAndCoverage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct{ n, limit int }{{0, 4}, {1, 4}, {10, 1}, {10, 3}, {3, 10}, {5, 0}} {
			var running, peak atomic.Int64
			calls := make([]atomic.Int64, tc.n)
			err := fanOut(context.Background(), tc.n, tc.limit, func(ctx context.Context, i int) error {
				now := running.Add(1)
				for {
					p := peak.Load()
					if now <= p || peak.CompareAndSwap(p, now) {
						break
					}
				}
				time.Sleep(time.Millisecond) // the bubble's clock: every call running waits here at once
				calls[i].Add(1)
				running.Add(-1)
				return nil
			})
			if err != nil {
				t.Fatalf("n=%d limit=%d: %v", tc.n, tc.limit, err)
			}
			// On the bubble's clock every call running sleeps at once, so
			// the peak is exactly the bound (or n, when fewer).
			if want := int64(min(max(1, tc.limit), tc.n)); peak.Load() != want {
				t.Errorf("n=%d limit=%d: %d calls ran at once, want %d", tc.n, tc.limit, peak.Load(), want)
			}
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Errorf("n=%d limit=%d: item %d called %d times", tc.n, tc.limit, i, c)
				}
			}
		}
	})
}

func TestFanOutStopsOnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		var started atomic.Int64
		err := fanOut(context.Background(), 100, 2, func(ctx context.Context, i int) error {
			switch {
			case i < 3:
				return nil
			case i == 3:
				return boom
			}
			started.Add(1)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(10 * time.Second):
				return errors.New("the error did not cancel the other calls")
			}
		})
		if !errors.Is(err, boom) {
			t.Fatalf("error %v, want boom", err)
		}
		if n := started.Load(); n > 1 {
			t.Errorf("%d items started after the failing one, want at most the other worker's", n)
		}
	})
}

func TestFanOutParentCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int64
	err := fanOut(ctx, 5, 2, func(ctx context.Context, i int) error { calls.Add(1); return nil })
	if !errors.Is(err, context.Canceled) || calls.Load() != 0 {
		t.Errorf("error %v after %d calls, want context.Canceled and none", err, calls.Load())
	}
}

package images

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// watch samples the processor's stats until stop is closed and returns the
// largest PoolRunning and DecodedBytesInUse seen.
func watch(p *Processor, stop <-chan struct{}) (maxRunning, maxDecoded *atomic.Int64, done <-chan struct{}) {
	maxRunning, maxDecoded = new(atomic.Int64), new(atomic.Int64)
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		for {
			s := p.Stats()
			if s.PoolRunning > maxRunning.Load() {
				maxRunning.Store(s.PoolRunning)
			}
			if s.DecodedBytesInUse > maxDecoded.Load() {
				maxDecoded.Store(s.DecodedBytesInUse)
			}
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	return maxRunning, maxDecoded, ch
}

// processAll runs one Process per input concurrently and fails on any
// result that is not Rewritten.
func processAll(t *testing.T, p *Processor, inputs [][]byte) {
	t.Helper()
	var wg sync.WaitGroup
	for _, in := range inputs {
		wg.Go(func() {
			res, err := p.Process(context.Background(), Request{Data: in})
			if err != nil || res.Outcome != Rewritten {
				t.Errorf("got %v %v %q", res.Outcome, err, res.Text)
			}
		})
	}
	wg.Wait()
}

func TestPoolBoundedByWorkersAndBudget(t *testing.T) {
	inputs := make([][]byte, 6)
	for i := range inputs {
		inputs[i] = b64(encJPEG(t, pattern(1800+i*40, 1300, false), 90))
	}
	need := int64(2040 * 1300 * 3)
	tests := []struct {
		name        string
		cfg         Config
		wantRunning int64
	}{
		{"two workers", Config{Workers: 2}, 2},
		{"budget for one image", Config{Workers: 2, MaxDecodedBytes: need + need/2}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestProcessor(t, tc.cfg)
			stop := make(chan struct{})
			maxRunning, maxDecoded, done := watch(p, stop)
			processAll(t, p, inputs)
			close(stop)
			<-done
			if maxRunning.Load() > tc.wantRunning {
				t.Errorf("%d tasks ran at once, want at most %d", maxRunning.Load(), tc.wantRunning)
			}
			if maxDecoded.Load() > p.pool.limit {
				t.Errorf("%d decoded bytes reserved, over the budget %d", maxDecoded.Load(), p.pool.limit)
			}
			if s := p.Stats(); s.PoolRunning != 0 || s.PoolWaiting != 0 || s.DecodedBytesInUse != 0 || s.Resized != int64(len(inputs)) {
				t.Errorf("stats after the run: %+v", s)
			}
		})
	}
}

func TestPoolWaitEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pl := newPool(1, 100)
		defer pl.close()
		release := make(chan struct{})
		started := make(chan struct{})
		go func() {
			_ = pl.do(context.Background(), 60, func() { close(started); <-release })
		}()
		<-started
		synctest.Wait() // the first call is on the worker
		if w := pl.waiting.Load(); w != 0 {
			t.Fatalf("%d calls waiting with one on the worker", w)
		}
		tests := []struct {
			name string
			need int64
		}{
			{"waiting for the budget", 60},
			{"waiting for a worker", 10},
		}
		for _, tc := range tests { // in turn, not as subtests: a bubble runs none
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				errc <- pl.do(ctx, tc.need, func() { t.Errorf("%s: task ran after its context ended", tc.name) })
			}()
			synctest.Wait() // the call waits, for the budget or for a worker
			if w := pl.waiting.Load(); w != 1 {
				t.Fatalf("%s: %d calls waiting, want 1", tc.name, w)
			}
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: do returned %v, want context.Canceled", tc.name, err)
			}
			if w, d := pl.waiting.Load(), pl.decodedInUse.Load(); w != 0 || d != 60 {
				t.Fatalf("%s: after the cancel: waiting %d, decoded bytes %d; want 0 and 60", tc.name, w, d)
			}
		}
		close(release)
	})
}

func TestProcessorClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p, err := NewProcessor(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	data := b64(encJPEG(t, pattern(1600, 1200, false), 80))
	if _, err := p.Process(context.Background(), Request{Data: data}); err != nil {
		t.Fatal(err)
	}
	p.Close()
	p.Close()
	if _, err := p.Process(context.Background(), Request{Data: data}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Process after Close returned %v, want ErrClosed", err)
	}
}

func TestProcessEndedContext(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Process(ctx, Request{Data: []byte("AAAA")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestNewProcessorRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{{Workers: -1}, {MaxDecodedBytes: -5}} {
		if _, err := NewProcessor(cfg); err == nil {
			t.Errorf("NewProcessor(%+v) accepted a negative bound", cfg)
		}
	}
}

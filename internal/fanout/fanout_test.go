package fanout

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestRunCallsEveryChunkOnce checks that every chunk runs exactly once.
func TestRunCallsEveryChunkOnce(t *testing.T) {
	p := New(3, 1)
	var hits [17]atomic.Int32
	p.Run(len(hits), func(i int) { hits[i].Add(1) })
	for i := range hits {
		if n := hits[i].Load(); n != 1 {
			t.Fatalf("chunk %d ran %d times", i, n)
		}
	}
}

// TestRunStaysWithinHelpers runs many jobs at once on a pool of 2 helpers:
// no more than 2 helpers plus the jobs' own goroutines ever run chunks.
func TestRunStaysWithinHelpers(t *testing.T) {
	const helpers, jobs = 2, 6
	p := New(helpers, 1)
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			p.Run(8, func(int) {
				n := running.Add(1)
				for {
					old := peak.Load()
					if n <= old || peak.CompareAndSwap(old, n) {
						break
					}
				}
				for range 10_000 {
					_ = n * n
				}
				running.Add(-1)
			})
		})
	}
	wg.Wait()
	if got := peak.Load(); got > helpers+jobs {
		t.Fatalf("%d chunks ran at once, bound is %d", got, helpers+jobs)
	}
	if len(p.tokens) != 0 {
		t.Fatalf("%d helper tokens still held", len(p.tokens))
	}
}

// TestRunProgressesWithoutHelpers holds every helper, as other jobs
// would, and checks that a job still finishes: its own goroutine runs all
// its chunks, one after another.
func TestRunProgressesWithoutHelpers(t *testing.T) {
	p := New(1, 1)
	p.tokens <- struct{}{} // another job holds the only helper
	var ran, running, peak int32
	p.Run(5, func(int) {
		running++
		peak = max(peak, running)
		ran++
		running--
	})
	if ran != 5 || peak != 1 {
		t.Fatalf("ran %d of 5 chunks, %d at once", ran, peak)
	}
	<-p.tokens
}

// TestRunRaisesPanicOnCaller checks that a chunk's panic, on a helper or
// on the caller, reaches the caller after every chunk stopped.
func TestRunRaisesPanicOnCaller(t *testing.T) {
	p := New(3, 1)
	defer func() {
		if r := recover(); r != "chunk 2" {
			t.Fatalf("recovered %v, want the chunk's panic", r)
		}
		if len(p.tokens) != 0 {
			t.Fatalf("%d helper tokens still held after the panic", len(p.tokens))
		}
	}()
	p.Run(4, func(i int) {
		if i == 2 {
			panic("chunk 2")
		}
	})
	t.Fatal("Run returned without raising the panic")
}

// TestChunks checks the threshold.
func TestChunks(t *testing.T) {
	for _, c := range []struct{ helpers, min, n, want int }{
		{3, 100, 99, 1}, {3, 100, 100, 4}, {3, 0, 1 << 20, 1}, {0, 1, 1 << 20, 1},
	} {
		if got := New(c.helpers, c.min).Chunks(c.n); got != c.want {
			t.Fatalf("New(%d, %d).Chunks(%d) = %d, want %d", c.helpers, c.min, c.n, got, c.want)
		}
	}
}

// TestChunksForBytes checks the byte threshold, which is separate from the
// message threshold and off until set.
func TestChunksForBytes(t *testing.T) {
	if got := New(3, 1).ChunksForBytes(1 << 30); got != 1 {
		t.Fatalf("no byte threshold set: %d chunks, want 1", got)
	}
	p := New(3, 0).WithMinBytes(1000)
	for _, c := range []struct{ n, want int }{{999, 1}, {1000, 4}, {1 << 30, 4}} {
		if got := p.ChunksForBytes(c.n); got != c.want {
			t.Fatalf("ChunksForBytes(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	if p.Chunks(1<<20) != 1 {
		t.Fatal("the byte threshold split by messages")
	}
}

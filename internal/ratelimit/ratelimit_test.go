package ratelimit

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recorder collects which jobs started and which were cancelled.
type recorder struct {
	mu        sync.Mutex
	started   []int
	cancelled []int
	done      chan int
}

func newRecorder() *recorder { return &recorder{done: make(chan int, 1000)} }

func (r *recorder) funcs(id int) (func(), func(error)) {
	return func() {
			r.mu.Lock()
			r.started = append(r.started, id)
			r.mu.Unlock()
			r.done <- id
		}, func(error) {
			r.mu.Lock()
			r.cancelled = append(r.cancelled, id)
			r.mu.Unlock()
			r.done <- id
		}
}

func (r *recorder) startedNow() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.started...)
}

func ratesOf(m map[string]Rates) func(string) Rates { return func(t string) Rates { return m[t] } }

// A tenant within its burst starts at once; past it, its jobs wait and then
// start in arrival order, while an unlimited tenant and a second limited
// tenant pass at once.
func TestOverRateWaitsInOrderOthersPass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var waited []time.Duration
		var mu sync.Mutex
		l := New(context.Background(), Config{
			RatesFor:   ratesOf(map[string]Rates{"flood": {JobsPerSecond: 20}, "calm": {JobsPerSecond: 20}}),
			MaxWaiting: 100,
			OnWaited:   func(d time.Duration) { mu.Lock(); waited = append(waited, d); mu.Unlock() },
		})
		rec := newRecorder()
		const flood = 40
		for i := range flood {
			start, cancel := rec.funcs(i)
			if err := l.Admit(context.Background(), "flood", "jobs/0", 10, start, cancel); err != nil {
				t.Fatal(err)
			}
		}
		if got := len(rec.startedNow()); got != 20 {
			t.Fatalf("started within the burst of 20 = %d", got)
		}
		if l.Waiting() != flood-20 {
			t.Fatalf("Waiting() = %d, want %d", l.Waiting(), flood-20)
		}
		for i, name := range []string{"calm", "free"} {
			start, cancel := rec.funcs(1000 + i)
			if err := l.Admit(context.Background(), name, "jobs/0", 10, start, cancel); err != nil {
				t.Fatal(err)
			}
			if s := rec.startedNow(); s[len(s)-1] != 1000+i {
				t.Fatalf("tenant %s did not start at once while another tenant waits: %v", name, s)
			}
		}
		for range flood + 2 {
			<-rec.done
		}
		got := rec.startedNow()
		var order []int
		for _, id := range got {
			if id < 1000 {
				order = append(order, id)
			}
		}
		for i, id := range order {
			if id != i {
				t.Fatalf("flood jobs started out of order: %v", order)
			}
		}
		if len(waited) != flood-20 || l.Waiting() != 0 {
			t.Fatalf("waited %d jobs, still waiting %d; want %d and 0", len(waited), l.Waiting(), flood-20)
		}
	})
}

// A job larger than the byte bucket is charged whole: the next one waits.
func TestBytesRateChargesLargeJobsWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(context.Background(), Config{RatesFor: ratesOf(map[string]Rates{"a": {BytesPerSecond: 1000}}), MaxWaiting: 10})
		rec := newRecorder()
		start, cancel := rec.funcs(0)
		_ = l.Admit(context.Background(), "a", "jobs/0", 1500, start, cancel)
		if len(rec.startedNow()) != 0 {
			t.Fatal("a job of 1.5 s worth of bytes started from a bucket of 1 s")
		}
		<-rec.done
	})
}

// When the tenant's queue is full, Admit blocks until ctx ends; when the
// limiter's context ends, every waiting job is cancelled, none started.
func TestFullQueueBlocksAndCloseCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, stop := context.WithCancel(context.Background())
		l := New(ctx, Config{RatesFor: ratesOf(map[string]Rates{"a": {JobsPerSecond: 0.01}}), MaxWaiting: 2})
		rec := newRecorder()
		for i := range 3 { // one from the burst, two waiting
			start, cancel := rec.funcs(i)
			if err := l.Admit(context.Background(), "a", "jobs/0", 1, start, cancel); err != nil {
				t.Fatal(err)
			}
		}
		short, cancelShort := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancelShort()
		start, cancel := rec.funcs(3)
		if err := l.Admit(short, "a", "jobs/0", 1, start, cancel); err != context.DeadlineExceeded {
			t.Fatalf("Admit on a full queue = %v, want DeadlineExceeded", err)
		}
		stop()
		<-rec.done
		<-rec.done
		<-rec.done
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if len(rec.started) != 1 || len(rec.cancelled) != 2 {
			t.Fatalf("started %v cancelled %v, want [0] and [1 2]", rec.started, rec.cancelled)
		}
		if err := l.Admit(context.Background(), "a", "jobs/0", 1, func() {}, func(error) {}); err != context.Canceled {
			t.Fatalf("Admit after the limiter's end = %v", err)
		}
	})
}

// Close cancels the waiting jobs of every tenant at once, in the order they
// came, and Admit refuses afterwards; a job already started stays started.
func TestCloseCancelsEveryWaitingJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(context.Background(), Config{RatesFor: ratesOf(map[string]Rates{"a": {JobsPerSecond: 1}, "b": {BytesPerSecond: 10}}), MaxWaiting: 10})
		rec := newRecorder()
		for i := range 6 {
			start, cancel := rec.funcs(i)
			if err := l.Admit(context.Background(), []string{"a", "b"}[i%2], "jobs/0", 10, start, cancel); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait() // the drain goroutines wait for their next job's time (the path under test)
		stopped := errors.New("stopping")
		l.Close(stopped)
		for range 6 {
			<-rec.done
		}
		rec.mu.Lock()
		started, cancelled := rec.started, rec.cancelled
		rec.mu.Unlock()
		if len(started) != 2 || len(cancelled) != 4 || l.Waiting() != 0 {
			t.Fatalf("started %v, cancelled %v, waiting %d; want the two in the bursts started, the other four cancelled", started, cancelled, l.Waiting())
		}
		if err := l.Admit(context.Background(), "a", "jobs/0", 1, func() {}, func(error) {}); err != stopped {
			t.Fatalf("Admit after Close = %v, want %v", err, stopped)
		}
		// The drain goroutines wake at their next job's time (within a second
		// of the fake clock), find nothing and end. The sleep is the bubble's:
		// it moves the fake clock 10s at once, no wall time passes.
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if n := drainsRunning(l); n > 0 {
			t.Fatalf("%d drain goroutines still running 10s after Close", n)
		}
		if got := len(rec.startedNow()); got != 2 {
			t.Fatalf("%d started after Close, want 2", got)
		}
	})
}

func drainsRunning(l *Limiter) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, t := range l.tenants {
		if t.draining {
			n++
		}
	}
	return n
}

// Revoke releases the waiting jobs of the revoked partitions (cancelled
// with its error, never started) and keeps the others waiting, in order:
// they start when the rate allows (the fake clock's: the test takes no
// wall time).
func TestRevokeReleasesWaitingJobsOfRevokedGroups(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, stopLimiter := context.WithCancel(context.Background())
		l := New(ctx, Config{RatesFor: ratesOf(map[string]Rates{"a": {JobsPerSecond: 2}}), MaxWaiting: 100})
		var mu sync.Mutex
		var started []int
		revokedBy := map[int]error{}
		next := make(chan int, 100)
		groups := []string{"jobs/0", "jobs/1", "jobs/2"}
		const n = 30 // 2 pass in the burst, 28 wait, one more every 500ms
		for i := range n {
			start := func() { mu.Lock(); started = append(started, i); mu.Unlock(); next <- i }
			cancel := func(err error) { mu.Lock(); revokedBy[i] = err; mu.Unlock() }
			if err := l.Admit(context.Background(), "a", groups[i%3], 1, start, cancel); err != nil {
				t.Fatal(err)
			}
		}
		<-next
		<-next
		lost := errors.New("partition revoked")
		released := l.Revoke(func(g string) bool { return g == "jobs/1" }, lost)
		for range 2 { // the next two waiting jobs, of jobs/2 and jobs/0, start at their times
			<-next
		}
		stopped := errors.New("stopping")
		l.Close(stopped)
		stopLimiter() // the drain goroutine, waiting for its next job's time, ends
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if want := []int{0, 1, 2, 3}; !slices.Equal(started, want) {
			t.Fatalf("started %v, want %v: the burst, then the waiting jobs of the partitions kept, in order", started, want)
		}
		if released != 9 {
			t.Fatalf("Revoke released %d jobs, want the 9 waiting jobs of jobs/1", released)
		}
		for i := 2; i < n; i++ {
			want := stopped
			if i%3 == 1 {
				want = lost
			}
			if i <= 3 {
				want = nil
			}
			if revokedBy[i] != want {
				t.Errorf("job %d (%s) was cancelled with %v, want %v", i, groups[i%3], revokedBy[i], want)
			}
		}
	})
}

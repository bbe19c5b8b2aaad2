package pipeline

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// TestSchedulerHoldTogglesUnderLoad: jobs of many keys and tenants while
// hold flips on and off: every job runs exactly once, each key in order,
// and no tenant exceeds its cap.
func TestSchedulerHoldTogglesUnderLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n, keys, tenants = 600, 30, 4
		var mu sync.Mutex
		ran := map[uint64]int{}
		last := map[string]uint64{}
		running := map[string]int{}
		var bad atomic.Value
		var wg sync.WaitGroup
		wg.Add(n)
		sch := newScheduler(3, func(string) int { return 2 }, func(j *job, done func()) {
			mu.Lock()
			ran[j.seq]++
			if j.seq < last[j.key] {
				bad.Store(fmt.Sprintf("key %s ran job %d after %d", j.key, j.seq, last[j.key]))
			}
			last[j.key] = j.seq
			running[j.tenant]++
			if running[j.tenant] > 2 {
				bad.Store(fmt.Sprintf("tenant %s ran %d jobs at once with a cap of 2", j.tenant, running[j.tenant]))
			}
			mu.Unlock()
			time.Sleep(time.Duration(j.seq%3) * 100 * time.Microsecond) // the bubble's clock: jobs take different times
			mu.Lock()
			running[j.tenant]--
			mu.Unlock()
			done()
			wg.Done()
		}, func() {})
		if err := sch.launch(); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		toggled := make(chan struct{})
		go func() {
			defer close(toggled)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(200 * time.Microsecond):
				}
				sch.hold(i%2 == 0)
			}
		}()
		offsets := map[int]int64{}
		for i := range n {
			k := (i * 7) % keys
			part := k % 4
			offsets[part]++
			sch.dispatch(&job{key: fmt.Sprintf("t%d/k%d", k%tenants, k), tenant: fmt.Sprintf("t%d", k%tenants), seq: uint64(i + 1),
				rec: transport.Record{Topic: "jobs", Partition: part, Offset: offsets[part]}})
		}
		close(stop)
		<-toggled
		sch.hold(false)
		wg.Wait()
		if err := sch.stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if v := bad.Load(); v != nil {
			t.Fatal(v)
		}
		for seq := uint64(1); seq <= n; seq++ {
			if ran[seq] != 1 {
				t.Fatalf("job %d ran %d times", seq, ran[seq])
			}
		}
	})
}

package kafka

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/transporttest"
)

func TestRebalanceEmbedded(t *testing.T)    { testRebalance(t, startEmbedded(t)) }
func TestRebalanceApacheKafka(t *testing.T) { testRebalance(t, realBrokers(t)) }

// testRebalance joins two members to a group on a 4-partition topic, checks
// the assignment each learns, reads every record through both, then closes
// one and checks the other takes every partition and commits cleanly.
func testRebalance(t *testing.T, brokers []string) {
	h := harness(brokers)
	topic := h.NewTopic(t, 4)
	group := transporttest.Name(t, "group")

	a := newTestSource(t, brokers, topic, group)
	waitFor(t, "member A to own all 4 partitions", func() bool {
		return a.Ready() && slices.Equal(a.Partitions(), []int{0, 1, 2, 3})
	})
	b := newTestSource(t, brokers, topic, group)
	waitFor(t, "A and B to split the partitions", func() bool {
		pa, pb := a.Partitions(), b.Partitions()
		return a.Ready() && b.Ready() && len(pa) == 2 && len(pb) == 2 && !slices.ContainsFunc(pa, func(p int) bool { return slices.Contains(pb, p) })
	})

	const n = 200
	sink := h.NewSink(t, topic, transporttest.SinkOptions{MaxMessageBytes: 1 << 20, CompressAbove: 1 << 14})
	recs := make([]transport.Record, n)
	for i := range recs {
		recs[i] = transport.Record{Key: []byte(fmt.Sprintf("key-%d", i%16)), Value: []byte(fmt.Sprint(i))}
	}
	if err := sink.Write(context.Background(), recs...); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	seen := map[string]int{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, src := range []*Source{a, b} {
		wg.Go(func() {
			for {
				rec, ack, err := src.Read(ctx)
				if err != nil {
					return
				}
				if err := ack(ctx, nil); err != nil {
					t.Error(err)
				}
				mu.Lock()
				seen[string(rec.Value)]++
				done := len(seen) == n
				mu.Unlock()
				if done {
					cancel()
				}
			}
		})
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("read %d distinct records through two members, want %d", len(seen), n)
	}

	if err := b.Close(context.Background()); err != nil {
		t.Fatalf("closing B: %v", err)
	}
	waitFor(t, "A to take all partitions back", func() bool {
		return a.Ready() && slices.Equal(a.Partitions(), []int{0, 1, 2, 3})
	})
	waitFor(t, "A to commit after the rebalance", func() bool {
		st := a.Stats()
		return st.Commits > 0 && st.Rebalances >= 3 && st.Generation > 0 && st.MemberID != ""
	})
	// Everything was acked and committed: a new member of the group reads nothing.
	if err := a.Close(context.Background()); err != nil {
		t.Fatalf("closing A: %v", err)
	}
	c := newTestSource(t, brokers, topic, group)
	rctx, rcancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer rcancel()
	if rec, _, err := c.Read(rctx); err == nil {
		t.Fatalf("a fresh member read %s; every record was committed", rec.SourceRef())
	}
}

func newTestSource(t *testing.T, brokers []string, topic, group string) *Source {
	t.Helper()
	s, err := NewSource(testSourceConfig(brokers, topic, group))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// waitFor polls cond until it holds, failing t after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

package kafka

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/transporttest"
)

func TestStickyMembersEmbedded(t *testing.T)    { testStickyMembers(t, startEmbedded(t)) }
func TestStickyMembersApacheKafka(t *testing.T) { testStickyMembers(t, realBrokers(t)) }

// testStickyMembers scales real members of one group 1 -> 2 -> 3 -> 2 on
// 8 partitions and checks that each join moves at most ⌈P/N⌉ partitions,
// that a leave moves only the leaver's, and that every member keeps the
// partitions it is not asked to give up.
func testStickyMembers(t *testing.T, brokers []string) {
	const p = 8
	topic := harness(brokers).NewTopic(t, p)
	group := transporttest.Name(t, "group")

	a := newTestSource(t, brokers, topic, group)
	members := []*Source{a}
	prev := settled(t, members, p)
	for _, n := range []int{2, 3} {
		members = append(members, newTestSource(t, brokers, topic, group))
		now := settled(t, members, p)
		moved := moves(prev, now)
		if limit := (p + n - 1) / n; moved > limit {
			t.Errorf("joining member %d moved %d partitions, more than ⌈%d/%d⌉ = %d: %v -> %v", n, moved, p, n, limit, prev, now)
		}
		t.Logf("join to %d members moved %d partitions: %v -> %v", n, moved, prev, now)
		prev = now
	}
	if err := members[1].Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	leaver := prev[1]
	members = slices.Delete(members, 1, 2)
	now := settled(t, members, p)
	kept := [][]int{prev[0], prev[2]}
	for i, ps := range now {
		if !isSubset(kept[i], ps) {
			t.Errorf("after a leave member %d holds %v; it had %v and should have kept it", i, ps, kept[i])
		}
	}
	t.Logf("leave of a member holding %v: %v -> %v", leaver, prev, now)
}

// settled waits until members hold every one of p partitions once, each
// ⌊p/N⌋ or ⌈p/N⌉ of them, unchanged for a second, and returns their
// partitions in member order.
func settled(t *testing.T, members []*Source, p int) [][]int {
	t.Helper()
	var last [][]int
	var since time.Time
	waitFor(t, fmt.Sprintf("%d members to settle on %d partitions", len(members), p), func() bool {
		now := make([][]int, len(members))
		seen := map[int]int{}
		for i, m := range members {
			if !m.Ready() {
				return false
			}
			now[i] = m.Partitions()
			if c := len(now[i]); c < p/len(members) || c > (p+len(members)-1)/len(members) {
				return false
			}
			for _, q := range now[i] {
				seen[q]++
			}
		}
		if len(seen) != p {
			return false
		}
		if !slices.EqualFunc(now, last, slices.Equal) {
			last, since = now, time.Now()
			return false
		}
		return time.Since(since) > time.Second
	})
	return last
}

// moves counts the partitions whose member in before (by index) no longer
// holds them in after.
func moves(before, after [][]int) int {
	n := 0
	for i, ps := range before {
		for _, q := range ps {
			if !slices.Contains(after[i], q) {
				n++
			}
		}
	}
	return n
}

func isSubset(sub, of []int) bool {
	for _, q := range sub {
		if !slices.Contains(of, q) {
			return false
		}
	}
	return true
}

func TestStickyHandOffEmbedded(t *testing.T)    { testStickyHandOff(t, startEmbedded(t)) }
func TestStickyHandOffApacheKafka(t *testing.T) { testStickyHandOff(t, realBrokers(t)) }

// testStickyHandOff holds a record of every partition of member A unacked
// while B joins: the partitions that move wait for A (B gets none of them
// while A's records are in flight), then go to B once A acks, and B reads
// them from after A's records: nothing is delivered twice.
func testStickyHandOff(t *testing.T, brokers []string) {
	const p = 4
	h := harness(brokers)
	topic := h.NewTopic(t, p)
	group := transporttest.Name(t, "group")
	recs := writeNumbered(t, h, topic, 4*p)

	a := newTestSource(t, brokers, topic, group)
	settled(t, []*Source{a}, p)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seen := map[string]int{}
	var held []transport.AckFunc
	for len(seen) < len(recs) { // A reads everything and acks all but the first record of each partition
		rec, ack, err := a.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen[string(rec.Value)]++
		if rec.Offset == 0 {
			held = append(held, ack)
		} else if err := ack(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}

	if len(held) != p {
		t.Fatalf("the records reached %d of %d partitions; the test needs every one", len(held), p)
	}
	b := newTestSource(t, brokers, topic, group)
	waitFor(t, "A to give up the partitions that move", func() bool { return a.Ready() && len(a.Partitions()) == p/2 })
	time.Sleep(2 * time.Second)
	if got := b.Partitions(); len(got) != 0 {
		t.Fatalf("B was given %v while A still had records of them in flight", got)
	}
	for _, ack := range held {
		if err := ack(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	settled(t, []*Source{a, b}, p)
	rctx, rcancel := context.WithTimeout(ctx, 3*time.Second)
	defer rcancel()
	for _, src := range []*Source{a, b} {
		if rec, _, err := src.Read(rctx); err == nil {
			t.Fatalf("%s was delivered again after the hand-off", rec.SourceRef())
		}
	}
}

func TestStickyRangeFallbackEmbedded(t *testing.T)    { testStickyRangeFallback(t, startEmbedded(t)) }
func TestStickyRangeFallbackApacheKafka(t *testing.T) { testStickyRangeFallback(t, realBrokers(t)) }

// testStickyRangeFallback joins a member that offers only the range
// assignor (a worker of an older version) to a sticky member: the group
// cannot use the sticky protocol, yet the two split the partitions and
// every record is read; when the old member leaves, the sticky one takes
// everything back.
func testStickyRangeFallback(t *testing.T, brokers []string) {
	const p = 4
	h := harness(brokers)
	topic := h.NewTopic(t, p)
	group := transporttest.Name(t, "group")
	a := newTestSource(t, brokers, topic, group)
	settled(t, []*Source{a}, p)
	cfg := testSourceConfig(brokers, topic, group)
	cfg.RangeOnly = true
	old, err := NewSource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = old.Close(context.Background()) })
	settled(t, []*Source{a, old}, p) // two each, every partition once
	recs := writeNumbered(t, h, topic, 40)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seen := make(chan string, len(recs))
	for _, src := range []*Source{a, old} {
		go func() {
			for {
				rec, ack, err := src.Read(ctx)
				if err != nil {
					return
				}
				_ = ack(ctx, nil)
				seen <- string(rec.Value)
			}
		}()
	}
	read := map[string]bool{}
	for len(read) < len(recs) {
		select {
		case v := <-seen:
			read[v] = true
		case <-ctx.Done():
			t.Fatalf("read %d of %d records through a mixed group", len(read), len(recs))
		}
	}
	if err := old.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	settled(t, []*Source{a}, p)
}

// writeNumbered writes n records to topic, keyed key-0.. and valued 0..n-1.
func writeNumbered(t *testing.T, h transporttest.Harness, topic string, n int) []transport.Record {
	t.Helper()
	sink := h.NewSink(t, topic, transporttest.SinkOptions{MaxMessageBytes: 1 << 20, CompressAbove: 1 << 14})
	recs := make([]transport.Record, n)
	for i := range recs {
		recs[i] = transport.Record{Key: fmt.Appendf(nil, "key-%d", i), Value: fmt.Appendf(nil, "%d", i)}
	}
	if err := sink.Write(context.Background(), recs...); err != nil {
		t.Fatal(err)
	}
	return recs
}

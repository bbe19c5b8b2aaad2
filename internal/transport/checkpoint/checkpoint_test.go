package checkpoint

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var p0 = Key{Topic: "jobs", Partition: 0}

// step is one action on a single partition: track an offset, or ack a
// previously tracked one (with or without an error).
type step struct {
	track int64
	ack   int64
	fail  bool
}

func track(o int64) step { return step{track: o, ack: -1} }
func ok(o int64) step    { return step{track: -1, ack: o} }
func fail(o int64) step  { return step{track: -1, ack: o, fail: true} }

func TestCommitPoint(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		want  int64 // -1: nothing to commit
	}{
		{name: "nothing tracked", want: -1},
		{name: "tracked, not acked", steps: []step{track(5)}, want: 5},
		{name: "in order", steps: []step{track(0), track(1), track(2), ok(0), ok(1), ok(2)}, want: 3},
		{name: "gap holds the point", steps: []step{track(0), track(1), track(2), ok(0), ok(2)}, want: 1},
		{name: "gap filled", steps: []step{track(0), track(1), track(2), ok(2), ok(0), ok(1)}, want: 3},
		{name: "failed record is never passed", steps: []step{track(0), track(1), track(2), ok(0), fail(1), ok(2)}, want: 1},
		{name: "lowest failure wins", steps: []step{track(3), track(4), track(5), fail(5), fail(4), ok(3)}, want: 4},
		{name: "offsets with holes (compaction)", steps: []step{track(10), track(14), ok(10), ok(14)}, want: 15},
		{name: "redelivered offset needs both acks", steps: []step{track(7), track(7), ok(7)}, want: 7},
		{name: "redelivered offset both acked", steps: []step{track(7), track(7), ok(7), ok(7)}, want: 8},
		{name: "rewind below seen", steps: []step{track(8), ok(8), track(3)}, want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(100)
			if err != nil {
				t.Fatal(err)
			}
			tickets := map[int64][]*Ticket{}
			for _, s := range tt.steps {
				if s.track >= 0 {
					tk, err := c.Track(context.Background(), p0, s.track)
					if err != nil {
						t.Fatal(err)
					}
					tickets[s.track] = append(tickets[s.track], tk)
					continue
				}
				tk := tickets[s.ack][0]
				tickets[s.ack] = tickets[s.ack][1:]
				var ackErr error
				if s.fail {
					ackErr = errors.New("stage failed")
				}
				if err := tk.Ack(ackErr); err != nil {
					t.Fatal(err)
				}
			}
			got, has := c.Commits()[p0]
			if tt.want < 0 {
				if has {
					t.Fatalf("Commits() = %d, want nothing", got)
				}
				return
			}
			if !has || got != tt.want {
				t.Fatalf("Commits() = %d (present %v), want %d", got, has, tt.want)
			}
		})
	}
}

func TestMarkCommittedHidesUnchangedPoint(t *testing.T) {
	c := mustNew(t, 10)
	tk := mustTrack(t, c, p0, 0)
	if err := tk.Ack(nil); err != nil {
		t.Fatal(err)
	}
	c.MarkCommitted(p0, 1)
	if got := c.Commits(); len(got) != 0 {
		t.Fatalf("Commits() after MarkCommitted = %v, want empty", got)
	}
	if err := mustTrack(t, c, p0, 1).Ack(nil); err != nil {
		t.Fatal(err)
	}
	if got := c.Commits()[p0]; got != 2 {
		t.Fatalf("Commits() = %d, want 2", got)
	}
}

func TestSecondAckIsAnErrorAndChangesNothing(t *testing.T) {
	c := mustNew(t, 10)
	tk := mustTrack(t, c, p0, 0)
	mustTrack(t, c, p0, 1)
	if err := tk.Ack(nil); err != nil {
		t.Fatal(err)
	}
	if err := tk.Ack(errors.New("late failure")); !errors.Is(err, transport.ErrAlreadyAcked) {
		t.Fatalf("second Ack = %v, want ErrAlreadyAcked", err)
	}
	if got := c.Commits()[p0]; got != 1 {
		t.Fatalf("Commits() = %d, want 1 (second ack must not fail offset 0)", got)
	}
	if got := c.InFlight()[p0]; got != 1 {
		t.Fatalf("InFlight() = %d, want 1", got)
	}
}

func TestTrackBlocksAtTheCap(t *testing.T) {
	c := mustNew(t, 2)
	first := mustTrack(t, c, p0, 0)
	mustTrack(t, c, p0, 1)
	// Another partition is not affected by p0's cap.
	mustTrack(t, c, Key{Topic: "jobs", Partition: 1}, 0)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Track(ctx, p0, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Track at the cap = %v, want DeadlineExceeded", err)
	}

	got := make(chan error, 1)
	go func() {
		_, err := c.Track(context.Background(), p0, 2)
		got <- err
	}()
	if err := first.Ack(nil); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("Track after an ack freed room = %v", err)
	}
	if n := c.InFlight()[p0]; n != 2 {
		t.Fatalf("InFlight() = %d, want 2", n)
	}
}

func TestCloseWakesBlockedTrack(t *testing.T) {
	c := mustNew(t, 1)
	mustTrack(t, c, p0, 0)
	got := make(chan error, 1)
	go func() {
		_, err := c.Track(context.Background(), p0, 1)
		got <- err
	}()
	c.Close()
	if err := <-got; !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("blocked Track after Close = %v, want ErrClosed", err)
	}
}

func TestAssignDropsStalePartitions(t *testing.T) {
	c := mustNew(t, 1)
	p1 := Key{Topic: "jobs", Partition: 1}
	stale := mustTrack(t, c, p0, 0)
	kept := mustTrack(t, c, p1, 4)

	blocked := make(chan error, 1)
	go func() {
		_, err := c.TrackAt(context.Background(), p0, 9, c.Epoch())
		blocked <- err
	}()
	c.Assign(map[Key]bool{p1: true})
	if err := <-blocked; !errors.Is(err, ErrStale) {
		t.Fatalf("Track blocked on a partition that moved away = %v, want ErrStale", err)
	}
	if err := stale.Ack(nil); err != nil {
		t.Fatal(err)
	}
	if err := kept.Ack(nil); err != nil {
		t.Fatal(err)
	}
	commits := c.Commits()
	if commits[p1] != 5 {
		t.Fatalf("Commits()[p1] = %d, want 5", commits[p1])
	}
	if got, ok := commits[p0]; ok {
		t.Fatalf("Commits()[p0] = %d, want nothing: p0 is not assigned", got)
	}
	if got := c.Partitions(); len(got) != 1 || got[0] != p1 {
		t.Fatalf("Partitions() = %v, want [p1]", got)
	}
}

func TestTrackAtRejectsRecordsFromBeforeAReassignment(t *testing.T) {
	c := mustNew(t, 10)
	both := map[Key]bool{p0: true, {Topic: "jobs", Partition: 1}: true}
	c.Assign(both)
	fetched := c.Epoch()
	inFlight, err := c.TrackAt(context.Background(), p0, 3, fetched)
	if err != nil {
		t.Fatal(err)
	}

	// p0 moves away and comes back: its fresh state must not accept a
	// record fetched before the move (offset 3 was in flight then).
	c.Assign(map[Key]bool{{Topic: "jobs", Partition: 1}: true})
	c.Assign(both)
	if _, err := c.TrackAt(context.Background(), p0, 7, fetched); !errors.Is(err, ErrStale) {
		t.Fatalf("TrackAt with a pre-move epoch = %v, want ErrStale", err)
	}
	if _, ok := c.Commits()[p0]; ok {
		t.Fatal("the rejected record left a commit point behind")
	}
	if err := inFlight.Ack(nil); err != nil { // a late ack of the dropped state changes nothing
		t.Fatal(err)
	}
	// A record fetched in the current epoch starts the fresh state.
	tk, err := c.TrackAt(context.Background(), p0, 2, c.Epoch())
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Commits()[p0]; got != 2 {
		t.Fatalf("Commits()[p0] = %d, want 2", got)
	}
	// A partition kept across assignments keeps its state, but refuses a
	// record fetched before the assignment: the new reader resumes at
	// Position, after every record tracked before it.
	c.Assign(both)
	if _, err := c.TrackAt(context.Background(), p0, 3, c.Epoch()-1); !errors.Is(err, ErrStale) {
		t.Fatalf("TrackAt of the previous epoch on a kept partition = %v, want ErrStale", err)
	}
	if next, _, ok := c.Position(p0); !ok || next != 3 {
		t.Fatalf("Position(p0) = %d, %v; want 3 (the kept state)", next, ok)
	}
	if err := tk.Ack(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TrackAt(context.Background(), Key{Topic: "jobs", Partition: 2}, 0, c.Epoch()); !errors.Is(err, ErrStale) {
		t.Fatalf("TrackAt on an unassigned partition = %v, want ErrStale", err)
	}
}

func TestPositionResetAndRelease(t *testing.T) {
	c := mustNew(t, 10)
	if _, _, ok := c.Position(p0); ok {
		t.Fatal("Position of an unknown partition is ok")
	}
	c.Reset(p0, 40)
	if next, committed, ok := c.Position(p0); !ok || next != -1 || committed != 40 {
		t.Fatalf("Position after Reset(40) = %d, %d, %v; want -1, 40, true", next, committed, ok)
	}
	first := mustTrack(t, c, p0, 40)
	last := mustTrack(t, c, p0, 41)
	// The reader stopped before handing out 41: it is forgotten, reading resumes at 41.
	last.Release()
	if next, _, _ := c.Position(p0); next != 41 {
		t.Fatalf("Position after Release = %d, want 41", next)
	}
	if err := last.Ack(nil); !errors.Is(err, transport.ErrAlreadyAcked) {
		t.Fatalf("Ack after Release = %v, want ErrAlreadyAcked", err)
	}
	// A reset drops the old state: its ticket no longer moves the commit point.
	c.Reset(p0, 40)
	if err := first.Ack(nil); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Commits()[p0]; ok {
		t.Fatalf("Commits()[p0] = %d after the ack of a dropped state, want nothing", got)
	}
	// A failed record makes the partition unresumable: it must be read again.
	if err := mustTrack(t, c, p0, 40).Ack(errors.New("failed")); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.Position(p0); ok {
		t.Fatal("Position of a partition with a failed record is ok")
	}
}

func TestNewRejectsNonPositiveCap(t *testing.T) {
	if _, err := New(0); err == nil {
		t.Fatal("New(0) succeeded, want an error")
	}
}

func BenchmarkTrackAck(b *testing.B) {
	c, err := New(1024)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	var off int64
	for b.Loop() {
		tk, err := c.Track(ctx, p0, off)
		if err != nil {
			b.Fatal(err)
		}
		if err := tk.Ack(nil); err != nil {
			b.Fatal(err)
		}
		off++
	}
}

func mustNew(t *testing.T, max int) *Checkpointer {
	t.Helper()
	c, err := New(max)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustTrack(t *testing.T, c *Checkpointer, key Key, off int64) *Ticket {
	t.Helper()
	tk, err := c.Track(context.Background(), key, off)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// Forget drops a handed-off partition without a new epoch: its late acks
// move no commit point, and the other partitions' readers, which track
// with the current epoch, go on.
func TestForgetKeepsTheEpoch(t *testing.T) {
	c, err := New(10)
	if err != nil {
		t.Fatal(err)
	}
	p1 := Key{Topic: "jobs", Partition: 1}
	c.Assign(map[Key]bool{p0: true, p1: true})
	epoch := c.Epoch()
	late, err := c.TrackAt(context.Background(), p0, 0, epoch)
	if err != nil {
		t.Fatal(err)
	}
	c.Forget(p0)
	if c.Epoch() != epoch {
		t.Fatalf("Forget moved the epoch from %d to %d", epoch, c.Epoch())
	}
	if _, err := c.TrackAt(context.Background(), p0, 1, epoch); !errors.Is(err, ErrStale) {
		t.Fatalf("tracking a forgotten partition: %v, want ErrStale", err)
	}
	tk, err := c.TrackAt(context.Background(), p1, 0, epoch)
	if err != nil {
		t.Fatalf("tracking a kept partition after Forget: %v", err)
	}
	if err := tk.Ack(nil); err != nil {
		t.Fatal(err)
	}
	_ = late.Ack(nil)
	if got := c.Commits(); len(got) != 1 || got[p1] != 1 {
		t.Fatalf("commits %v, want only %v at 1", got, p1)
	}
}

// Done reports the commit point whether or not it was committed, and
// stops at a record acked with an error.
func TestDoneIsTheUncommittedPoint(t *testing.T) {
	c, err := New(10)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.Done(p0); ok {
		t.Fatal("Done of an unknown partition is ok")
	}
	c.Reset(p0, 3)
	var tks []*Ticket
	for off := int64(3); off < 8; off++ {
		tk, err := c.Track(context.Background(), p0, off)
		if err != nil {
			t.Fatal(err)
		}
		tks = append(tks, tk)
	}
	for i, tk := range tks {
		var ackErr error
		if i == 3 { // offset 6
			ackErr = errors.New("failed")
		}
		if err := tk.Ack(ackErr); err != nil {
			t.Fatal(err)
		}
	}
	point, committed, ok := c.Done(p0)
	if !ok || point != 6 || committed != 3 {
		t.Fatalf("Done = %d, %d, %v; want 6 (the failed offset), 3 (the last commit), true", point, committed, ok)
	}
}

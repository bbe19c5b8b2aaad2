// Package checkpoint tracks in-flight offsets per partition and tells a
// Source which offset it may commit.
//
// Kafka consumer groups store one offset per partition and a commit means
// "everything below this offset is done". Records finish out of order (the
// pipeline runs different keys in parallel), so a Source may only commit the
// lowest offset that is not done yet. A Checkpointer keeps, per partition,
// the offsets handed out and not yet acked (with a count, because a rebalance
// can deliver the same offset twice), the lowest offset acked with an error
// (the partition never commits past it until the Source is reopened), and the
// highest offset seen. Its commit point is the smallest of: the lowest
// in-flight offset, the lowest failed offset, and the highest seen plus one.
//
// The number of in-flight offsets per partition is capped: Track blocks
// while a partition is at the cap, so memory stays bounded and a slow
// partition applies backpressure to the Source. Offsets acked after a failed
// one are not stored at all.
//
// A consumer-group Source tells the Checkpointer each new assignment
// (Assign). Partitions that moved away are dropped: tickets of a dropped
// partition still ack exactly once but no longer move any commit point, so a
// Source never commits a partition it no longer owns on the strength of
// stale acks. Partitions kept across assignments keep their state (their
// in-flight offsets are still this member's work), and Position tells the
// Source where to resume reading them, so a rebalance does not make it
// read its own in-flight records again. Every assignment starts a new epoch;
// a record fetched in an earlier epoch is refused (TrackAt returns ErrStale):
// the reader of the new epoch starts at Position, after every record tracked
// before the switch, so the refused record is read again, never skipped.
//
// May import: internal/transport.
package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// Key names one partition of one topic.
type Key struct {
	Topic     string
	Partition int
}

// String returns "topic/partition".
func (k Key) String() string { return fmt.Sprintf("%s/%d", k.Topic, k.Partition) }

// ErrStale is returned by TrackAt for a record of a partition that is not in
// the current assignment, or whose state is newer than the record's fetch.
// The Source drops such a record: the partition's current owner reads it
// from the committed offset.
var ErrStale = errors.New("checkpoint: record belongs to an earlier assignment")

// Checkpointer tracks in-flight offsets for many partitions. It is safe for
// concurrent use.
type Checkpointer struct {
	maxInFlight int
	mu          sync.Mutex
	parts       map[Key]*partition
	epoch       int64        // incremented by Assign
	assigned    map[Key]bool // nil until the first Assign: every partition allowed
	closed      chan struct{}
	closeOnce   sync.Once
}

// partition is the state of one partition; guarded by Checkpointer.mu.
type partition struct {
	inflight  map[int64]int // offset -> number of outstanding tickets
	count     int           // sum of inflight values
	failed    int64         // lowest offset acked with an error, or -1
	next      int64         // highest offset seen + 1, or -1 before the first
	committed int64         // last offset reported by MarkCommitted (or Reset), or -1
	dropped   bool
	space     chan struct{} // closed and replaced when an ack frees room
}

// New returns a Checkpointer allowing at most maxInFlight unacked offsets per
// partition. maxInFlight must be positive.
func New(maxInFlight int) (*Checkpointer, error) {
	if maxInFlight <= 0 {
		return nil, fmt.Errorf("checkpoint: the in-flight cap per partition must be positive, got %d", maxInFlight)
	}
	return &Checkpointer{maxInFlight: maxInFlight, parts: map[Key]*partition{}, closed: make(chan struct{})}, nil
}

func newPartition() *partition {
	return &partition{inflight: map[int64]int{}, failed: -1, next: -1, committed: -1, space: make(chan struct{})}
}

// Track records offset of key as in flight and returns its Ticket. It blocks
// while the partition has the maximum number of offsets in flight, until an
// ack frees room, ctx ends (returning ctx.Err()) or the Checkpointer is closed
// (returning transport.ErrClosed). For a Source without assignments.
func (c *Checkpointer) Track(ctx context.Context, key Key, offset int64) (*Ticket, error) {
	return c.track(ctx, key, offset, -1)
}

// Epoch returns the current assignment epoch; a Source notes it when it
// fetches a record and passes it to TrackAt.
func (c *Checkpointer) Epoch() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// TrackAt is Track for a record fetched during epoch: it returns ErrStale
// when key is not in the current assignment or epoch is not the current one
// (a blocked TrackAt wakes up to find out when Assign starts a new epoch).
func (c *Checkpointer) TrackAt(ctx context.Context, key Key, offset, epoch int64) (*Ticket, error) {
	return c.track(ctx, key, offset, epoch)
}

// track implements Track (epoch < 0: no epoch check) and TrackAt.
func (c *Checkpointer) track(ctx context.Context, key Key, offset, epoch int64) (*Ticket, error) {
	for {
		c.mu.Lock()
		if c.assigned != nil && !c.assigned[key] {
			c.mu.Unlock()
			return nil, fmt.Errorf("%w: partition %s is not assigned", ErrStale, key)
		}
		p, ok := c.parts[key]
		if !ok {
			p = newPartition()
			c.parts[key] = p
		}
		if epoch >= 0 && c.epoch != epoch {
			if p.count == 0 && p.next < 0 && p.committed < 0 {
				delete(c.parts, key) // created just now for this record; leave no trace
			}
			c.mu.Unlock()
			return nil, fmt.Errorf("%w: offset %s/%d was fetched before the latest assignment", ErrStale, key, offset)
		}
		if p.count < c.maxInFlight {
			tk := &Ticket{c: c, p: p, key: key, offset: offset, prevNext: p.next}
			p.inflight[offset]++
			p.count++
			if offset+1 > p.next {
				p.next = offset + 1
			}
			c.mu.Unlock()
			return tk, nil
		}
		space := p.space
		c.mu.Unlock()
		select {
		case <-space:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, transport.ErrClosed
		}
	}
}

// Close wakes every blocked Track, which then returns transport.ErrClosed.
func (c *Checkpointer) Close() { c.closeOnce.Do(func() { close(c.closed) }) }

// Commits returns, for every partition whose commit point moved past its last
// committed offset, the offset to commit (the next offset to consume).
func (c *Checkpointer) Commits() map[Key]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[Key]int64{}
	for key, p := range c.parts {
		if point, ok := p.commitPoint(); ok && point > p.committed {
			out[key] = point
		}
	}
	return out
}

// MarkCommitted records that offset was committed for key, so Commits stops
// returning it. A partition dropped meanwhile is left alone.
func (c *Checkpointer) MarkCommitted(key Key, offset int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.parts[key]; ok && offset > p.committed {
		p.committed = offset
	}
}

// Assign starts a new epoch with the given assignment and drops every
// partition not in it: their tickets no longer move a commit point and Track
// calls for them fail with ErrStale. Kept partitions keep their state.
// Blocked Track calls wake to find out (TrackAt of the old epoch fails).
func (c *Checkpointer) Assign(keep map[Key]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.assigned = make(map[Key]bool, len(keep))
	for k, v := range keep {
		if v {
			c.assigned[k] = true
		}
	}
	for key, p := range c.parts {
		if !keep[key] {
			c.dropLocked(key, p)
			continue
		}
		close(p.space)
		p.space = make(chan struct{})
	}
}

// Forget drops the state of keys without starting a new epoch: their
// tickets no longer move a commit point, and every other partition's
// readers go on. A Source calls it for partitions it handed off.
func (c *Checkpointer) Forget(keys ...Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, key := range keys {
		if p, ok := c.parts[key]; ok {
			c.dropLocked(key, p)
		}
		delete(c.assigned, key)
	}
}

// Reset replaces the state of key by a fresh one whose last committed
// offset is committed (negative: none is known). A Source calls it for a
// partition it starts reading from the group's committed offset; tickets of
// the old state no longer move a commit point.
func (c *Checkpointer) Reset(key Key, committed int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.parts[key]; ok {
		c.dropLocked(key, p)
	}
	p := newPartition()
	p.committed = max(committed, -1)
	c.parts[key] = p
}

// dropLocked forgets p and wakes its blocked Track calls; the caller holds c.mu.
func (c *Checkpointer) dropLocked(key Key, p *partition) {
	p.dropped = true
	close(p.space)
	delete(c.parts, key)
}

// Position returns where reading key resumes (the highest offset tracked
// plus one, or -1 before the first) and its last committed offset (-1 when
// none is known). ok is false when key has no state, or when one of its
// records was acked with an error: then the partition must be read again
// from its committed offset (Reset), so the failed record comes again.
func (c *Checkpointer) Position(key Key) (next, committed int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.parts[key]
	if !ok || p.failed >= 0 {
		return -1, -1, false
	}
	return p.next, p.committed, true
}

// Done returns the offset below which every record of key that was
// tracked is acked with a nil error (its commit point, whether committed
// or not) and its last committed offset; ok is false when key has no state
// or no record was tracked. A Source that gets a partition back whose
// group offset is still the one it committed last starts reading there:
// the records below are done.
func (c *Checkpointer) Done(key Key) (point, committed int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, found := c.parts[key]
	if !found {
		return 0, 0, false
	}
	point, ok = p.commitPoint()
	return point, p.committed, ok
}

// InFlight returns the number of unacked offsets per partition.
func (c *Checkpointer) InFlight() map[Key]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[Key]int, len(c.parts))
	for key, p := range c.parts {
		out[key] = p.count
	}
	return out
}

// Partitions returns the tracked partitions, sorted.
func (c *Checkpointer) Partitions() []Key {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]Key, 0, len(c.parts))
	for key := range c.parts {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Topic != keys[j].Topic {
			return keys[i].Topic < keys[j].Topic
		}
		return keys[i].Partition < keys[j].Partition
	})
	return keys
}

// commitPoint returns the offset below which every seen offset is done.
func (p *partition) commitPoint() (int64, bool) {
	if p.next < 0 {
		return 0, false
	}
	point := p.next
	for off := range p.inflight {
		point = min(point, off)
	}
	if p.failed >= 0 {
		point = min(point, p.failed)
	}
	return point, true
}

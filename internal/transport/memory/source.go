package memory

import (
	"context"
	"fmt"
	"sync"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/checkpoint"
)

// SourceConfig configures a Source.
type SourceConfig struct {
	Topic string
	Group string
	// MaxInFlightPerPartition caps unacked records per partition; Read blocks
	// at the cap. Default 1000.
	MaxInFlightPerPartition int
	// EndOfInput makes Read return transport.ErrEndOfInput once every
	// partition has been read to its end, instead of waiting for more records.
	EndOfInput bool
}

// Source reads one topic for one consumer group. It is safe for concurrent use.
type Source struct {
	b     *Broker
	cfg   SourceConfig
	g     *group
	cp    *checkpoint.Checkpointer
	mu    sync.Mutex // guards pos, rr and closed; taken after b.mu
	pos   []int64    // next offset to deliver per partition
	rr    int
	dead  bool // crashed or closed
	once  sync.Once
	done  chan struct{}
	topic *topic
}

var _ transport.Source = (*Source)(nil)

// NewSource opens the group's Source on cfg.Topic, starting at the group's
// committed offsets. A group has at most one open Source.
func (b *Broker) NewSource(cfg SourceConfig) (*Source, error) {
	if cfg.MaxInFlightPerPartition == 0 {
		cfg.MaxInFlightPerPartition = 1000
	}
	cp, err := checkpoint.New(cfg.MaxInFlightPerPartition)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.topics[cfg.Topic]
	if !ok {
		return nil, fmt.Errorf("memory: topic %q does not exist", cfg.Topic)
	}
	key := groupKey{cfg.Topic, cfg.Group}
	g, ok := b.groups[key]
	if !ok {
		g = &group{committed: make([]int64, len(t.partitions))}
		b.groups[key] = g
	}
	if g.open != nil {
		return nil, fmt.Errorf("memory: group %q already has an open source on topic %q", cfg.Group, cfg.Topic)
	}
	s := &Source{b: b, cfg: cfg, g: g, cp: cp, pos: append([]int64(nil), g.committed...), done: make(chan struct{}), topic: t}
	g.open = s
	return s, nil
}

// Read returns the next record, taking partitions in turn.
func (s *Source) Read(ctx context.Context) (transport.Record, transport.AckFunc, error) {
	for {
		s.b.mu.Lock()
		changed := s.b.changed
		rec, ok, end := s.next()
		s.b.mu.Unlock()
		if s.isDead() {
			return transport.Record{}, nil, transport.ErrClosed
		}
		if ok {
			tk, err := s.cp.Track(ctx, checkpoint.Key{Topic: rec.Topic, Partition: rec.Partition}, rec.Offset)
			if err != nil {
				return transport.Record{}, nil, err
			}
			return rec, s.ackFunc(tk), nil
		}
		if end && s.cfg.EndOfInput {
			return transport.Record{}, nil, transport.ErrEndOfInput
		}
		select {
		case <-changed:
		case <-s.done:
		case <-ctx.Done():
			return transport.Record{}, nil, ctx.Err()
		}
	}
}

// next picks the next deliverable record: a partition with records left and
// room under the in-flight cap. end reports that every partition is read to
// its end. The caller holds b.mu.
func (s *Source) next() (rec transport.Record, ok, end bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return rec, false, false
	}
	inflight := s.cp.InFlight()
	n := len(s.topic.partitions)
	end = true
	for i := range n {
		p := (s.rr + i) % n
		if s.pos[p] >= int64(len(s.topic.partitions[p])) {
			continue
		}
		end = false
		if inflight[checkpoint.Key{Topic: s.cfg.Topic, Partition: p}] >= s.cfg.MaxInFlightPerPartition {
			continue
		}
		rec = s.topic.partitions[p][s.pos[p]]
		s.pos[p]++
		s.rr = (p + 1) % n
		return rec, true, false
	}
	return rec, false, end
}

// ackFunc wraps tk: the ack is recorded, then the group's committed offsets
// move to the new commit points, unless the Source crashed meanwhile.
func (s *Source) ackFunc(tk *checkpoint.Ticket) transport.AckFunc {
	return func(_ context.Context, err error) error {
		if ackErr := tk.Ack(err); ackErr != nil {
			return ackErr
		}
		s.b.mu.Lock()
		defer s.b.mu.Unlock()
		if !s.isDead() {
			s.commit()
		}
		s.b.notify()
		return nil
	}
}

// commit moves the group's committed offsets; the caller holds b.mu.
func (s *Source) commit() {
	for key, off := range s.cp.Commits() {
		if off > s.g.committed[key.Partition] {
			s.g.committed[key.Partition] = off
		}
		s.cp.MarkCommitted(key, off)
	}
}

// Close commits what is acked and releases the group. Reads after Close
// return transport.ErrClosed.
func (s *Source) Close(context.Context) error {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.isDead() {
		return nil
	}
	s.commit()
	s.detach()
	if s.g.open == s {
		s.g.open = nil
	}
	s.b.notify()
	return nil
}

// detach marks the Source dead and wakes its blocked Reads; the caller holds b.mu.
func (s *Source) detach() {
	s.mu.Lock()
	s.dead = true
	s.mu.Unlock()
	s.once.Do(func() { close(s.done) })
	s.cp.Close()
}

func (s *Source) isDead() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}

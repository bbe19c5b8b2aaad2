package kafka

import (
	kafkago "github.com/segmentio/kafka-go"
)

// Stats is a snapshot of a Source for metrics and health checks.
type Stats struct {
	// Reader is kafka-go's ReaderStats: counters since the previous call to
	// Stats, and gauges (Lag: messages between the last fetched offset and
	// the partition end, for the partition fetched last).
	Reader kafkago.ReaderStats
	// Partitions are the partitions assigned in the current generation.
	Partitions []int
	// Ready is true while the member holds a stable assignment.
	Ready bool
	// Generation and MemberID identify the current group generation.
	Generation int32
	MemberID   string
	// Rebalances counts assignments received since the Source started.
	Rebalances int64
	// InFlight is the number of unacked records per partition.
	InFlight map[int]int
	// Commits and CommitErrors count commit requests since the Source started.
	Commits      int64
	CommitErrors int64
	// LastCommitError is the most recent commit failure, nil if none.
	LastCommitError error
}

// Stats returns the Source's current figures. Reader counters reset on each call.
func (s *Source) Stats() Stats {
	parts, stable, gen, member, rebalances := s.group.snapshot()
	inflight := map[int]int{}
	for k, n := range s.cp.InFlight() {
		inflight[k.Partition] = n
	}
	s.lastErrMu.Lock()
	lastErr := s.lastErr
	s.lastErrMu.Unlock()
	return Stats{
		Reader:          s.reader.Stats(),
		Partitions:      parts,
		Ready:           stable && !s.closed.Load(),
		Generation:      gen,
		MemberID:        member,
		Rebalances:      rebalances,
		InFlight:        inflight,
		Commits:         s.commits.Load(),
		CommitErrors:    s.commitErrors.Load(),
		LastCommitError: lastErr,
	}
}

// Ready reports whether the Source holds a stable group assignment (possibly
// empty, when the group has more members than the topic has partitions).
func (s *Source) Ready() bool {
	_, stable, _, _, _ := s.group.snapshot()
	return stable && !s.closed.Load()
}

// Partitions returns the partitions assigned in the current generation.
func (s *Source) Partitions() []int {
	parts, _, _, _, _ := s.group.snapshot()
	return parts
}

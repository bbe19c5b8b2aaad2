package kafka

// Stats is a snapshot of a Source for metrics and health checks.
type Stats struct {
	// Lag is the sum over the assigned partitions of the messages between
	// the last fetched offset and the partition's end.
	Lag int64
	// Partitions are the partitions assigned in the current generation.
	Partitions []int
	// Ready is true while the member holds a generation.
	Ready bool
	// Generation and MemberID identify the latest group generation.
	Generation int32
	MemberID   string
	// Rebalances counts generations received since the Source started.
	Rebalances int64
	// InFlight is the number of unacked records per partition.
	InFlight map[int]int
	// Commits and CommitErrors count commit requests since the Source started.
	Commits      int64
	CommitErrors int64
	// LastCommitError is the most recent commit failure, nil if none.
	LastCommitError error
}

// Stats returns the Source's current figures.
func (s *Source) Stats() Stats {
	inflight := map[int]int{}
	for k, n := range s.cp.InFlight() {
		inflight[k.Partition] = n
	}
	s.lastErrMu.Lock()
	lastErr := s.lastErr
	s.lastErrMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	var lag int64
	for _, r := range s.readers {
		lag += r.Stats().Lag
	}
	return Stats{
		Lag:             lag,
		Partitions:      append([]int(nil), s.parts...),
		Ready:           s.gen != nil && !s.isClosing(),
		Generation:      s.lastGen,
		MemberID:        s.lastMember,
		Rebalances:      s.rebalances,
		InFlight:        inflight,
		Commits:         s.commits.Load(),
		CommitErrors:    s.commitErrors.Load(),
		LastCommitError: lastErr,
	}
}

// Ready reports whether the Source holds a group generation (whose
// assignment may be empty, when the group has more members than the topic
// has partitions).
func (s *Source) Ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen != nil && !s.isClosing()
}

// Partitions returns the partitions assigned in the current generation.
func (s *Source) Partitions() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.parts...)
}

func (s *Source) isClosing() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

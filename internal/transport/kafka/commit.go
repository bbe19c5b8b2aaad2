package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// errNoGeneration is the commit error while the member holds no generation
// (a rebalance is in progress); the offsets stay pending.
var errNoGeneration = errors.New("no group generation is active")

// commitLoop commits acked offsets through gen every CommitInterval until
// gen ends; then it tells the pause handlers (see ended) and commits once
// more through gen (the coordinator still accepts the ending generation's
// commits while the group rebalances), so the partitions that move carry
// as little uncommitted work as possible to their next owner.
func (s *Source) commitLoop(ctx context.Context, gen *kafkago.Generation) {
	ticker := time.NewTicker(s.cfg.CommitInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			s.ended(gen)
			_ = s.commit(gen)
			return
		case <-ticker.C:
		}
		_ = s.commit(gen) // counted and kept in LastCommitError; the offsets are retried next time
	}
}

// commit sends one synchronous commit through gen with the commit point of
// every partition of the current assignment that moved. On failure the
// points stay pending and are retried. A stale generation's commit is
// refused by the coordinator, so a partition this member lost is never
// committed by it.
func (s *Source) commit(gen *kafkago.Generation) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if s.abandoned {
		return nil
	}
	points := s.cp.Commits()
	if len(points) == 0 {
		return nil
	}
	if gen == nil {
		return s.commitFailed(fmt.Errorf("kafka: committing offsets %v for group %q: %w", points, s.cfg.GroupID, errNoGeneration))
	}
	offsets := map[int]int64{}
	for k, off := range points {
		offsets[k.Partition] = off
	}
	if err := gen.CommitOffsets(map[string]map[int]int64{s.cfg.Topic: offsets}); err != nil {
		return s.commitFailed(fmt.Errorf("kafka: committing offsets %v for group %q in generation %d: %w", points, s.cfg.GroupID, gen.ID, err))
	}
	for k, off := range points {
		s.cp.MarkCommitted(k, off)
	}
	s.commits.Add(1)
	return nil
}

func (s *Source) commitFailed(err error) error {
	s.commitErrors.Add(1)
	s.lastErrMu.Lock()
	s.lastErr = err
	s.lastErrMu.Unlock()
	return err
}

// finalCommit commits acked offsets through the current generation,
// retrying a failed commit (a rebalance in progress, a coordinator moving)
// until it lands or ctx ends; without a deadline on ctx it tries for
// CommitTimeout.
func (s *Source) finalCommit(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.CommitTimeout)
		defer cancel()
	}
	for {
		err := s.commit(s.current())
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

package kafka

import (
	"context"
	"fmt"
	"sort"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hygiene-dev/hygiene/internal/transport/checkpoint"
)

// commitLoop commits acked offsets every CommitInterval and whenever a flush
// is requested (a generation ends or begins), until the Source closes.
func (s *Source) commitLoop() {
	defer close(s.loopDone)
	ticker := time.NewTicker(s.cfg.CommitInterval)
	defer ticker.Stop()
	for {
		select {
		case <-s.loopCtx.Done():
			return
		case <-ticker.C:
		case <-s.flush:
		}
		ctx, cancel := context.WithTimeout(s.loopCtx, s.cfg.CommitTimeout)
		_ = s.commit(ctx) // counted and kept in LastCommitError; the offsets are retried next time
		cancel()
	}
}

// commit sends one synchronous commit with the commit point of every
// partition that moved. On failure the points stay pending and are retried.
func (s *Source) commit(ctx context.Context) error {
	points := s.cp.Commits()
	if len(points) == 0 {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.CommitTimeout)
		defer cancel()
	}
	keys := make([]checkpoint.Key, 0, len(points))
	for k := range points {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Partition < keys[j].Partition })
	msgs := make([]kafkago.Message, len(keys))
	for i, k := range keys {
		// kafka-go commits Offset+1: the message given is the last one done.
		msgs[i] = kafkago.Message{Topic: k.Topic, Partition: k.Partition, Offset: points[k] - 1}
	}
	if err := s.reader.CommitMessages(ctx, msgs...); err != nil {
		s.commitErrors.Add(1)
		err = fmt.Errorf("kafka: committing offsets %v for group %q: %w", points, s.cfg.GroupID, err)
		s.lastErrMu.Lock()
		s.lastErr = err
		s.lastErrMu.Unlock()
		return err
	}
	for _, k := range keys {
		s.cp.MarkCommitted(k, points[k])
	}
	s.commits.Add(1)
	return nil
}

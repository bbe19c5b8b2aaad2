package transport

import (
	"context"
	"errors"
)

// Partition names one partition of one topic.
type Partition struct {
	Topic     string
	Partition int
}

// PartitionOf returns the partition r was read from.
func (r Record) PartitionOf() Partition { return Partition{Topic: r.Topic, Partition: r.Partition} }

// Revoker is implemented by a Source whose partitions can be taken away and
// given to another consumer (a member of a consumer group). A consumer
// should not start records of a revoked partition it has not started yet:
// it acks them with ErrRevoked, and the new owner reads them again. Records
// already in progress may finish: a Source that hands partitions off (the
// Kafka Source) commits their acks before the new owner starts, so their
// work is not done twice; after the hand-off, acks of the partition commit
// nothing, and a late one is a duplicate at worst, never a loss.
type Revoker interface {
	// OnPause registers fn, which the Source calls when a rebalance begins:
	// partitions may move, but which ones is known only when it ends. A
	// consumer should start no new record until the next OnRevoke call, so
	// it does not work on records about to move. fn may block until ctx
	// ends to finish the records it started; a Source that hands off the
	// partitions that move (waiting for their started records itself)
	// passes a ctx that is already done.
	OnPause(fn func(ctx context.Context))
	// OnRevoke registers fn, which the Source calls when a rebalance ends,
	// with the partitions it lost (possibly none), before it delivers any
	// record of its new assignment; the consumer may start records again.
	// When no new assignment comes within the group's session timeout, the
	// Source calls it with every partition it held: the group has given
	// them away. Both fns must return quickly (the group waits).
	OnRevoke(fn func([]Partition))
}

// ErrRevoked is the error a consumer acks a record with when it drops the
// record unprocessed because its partition was revoked.
var ErrRevoked = errors.New("transport: the record's partition was revoked before it was processed")

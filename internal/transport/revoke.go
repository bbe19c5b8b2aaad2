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
// given to another consumer (a member of a consumer group). After a
// revocation, acks of the revoked partitions' records no longer commit
// anything: the new owner reads them again from the committed offset. So a
// consumer should not start records of a revoked partition it has not
// started yet (their work would only be duplicated); records already in
// progress may finish and write their output, which is then a duplicate at
// worst, never a loss.
type Revoker interface {
	// OnPause registers fn, which the Source calls when a rebalance begins:
	// partitions may move, but which ones is known only when it ends. A
	// consumer should start no new record until the next OnRevoke call, so
	// it does not work on records about to move (the jobs it finishes
	// meanwhile would be duplicated by their new owner), and may block
	// until ctx ends to finish and ack the records it has started: the
	// Source commits once more after fn returns, so their work is not done
	// twice when their partition moves.
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

package transport

import "errors"

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
	// OnRevoke registers fn, which the Source calls with the partitions it
	// lost, each time it loses some, before it delivers any record of its
	// new assignment. fn must not block for long (the group waits).
	OnRevoke(fn func([]Partition))
}

// ErrRevoked is the error a consumer acks a record with when it drops the
// record unprocessed because its partition was revoked.
var ErrRevoked = errors.New("transport: the record's partition was revoked before it was processed")

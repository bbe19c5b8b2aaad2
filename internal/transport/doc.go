// Package transport defines how records enter and leave the pipeline: a
// Source hands out records one at a time with an AckFunc, a Sink writes
// records durably. Implementations live in the subpackages memory (in-process,
// for fast tests) and kafka (segmentio/kafka-go); transporttest is the
// conformance suite every implementation passes, and checkpoint is the
// per-partition commit tracker both share.
//
// Delivery is at least once. A Source never moves its committed position past
// a record that has not been acked with a nil error, so after a crash or a
// rebalance every record that was not acknowledged is delivered again;
// records acked but not yet committed may be delivered again too. The
// pipeline makes that safe by producing byte-identical output for the same
// input.
//
// Contract of an AckFunc: it is called exactly once per record. With err ==
// nil the record is done and its offset may be committed once every earlier
// record of its partition is done too. With err != nil the record is not done:
// the Source never commits past it, so it is delivered again after the Source
// is reopened (or its partition moves). A second call returns an error and
// changes nothing.
//
// A Source whose partitions can move to another consumer (a consumer-group
// member) implements Revoker: it says when a rebalance begins and which
// partitions it lost when it ends, so a consumer can stop starting work
// that the new owner will read again.
//
// May import: internal/compression.
package transport

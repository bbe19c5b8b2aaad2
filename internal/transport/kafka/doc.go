// Package kafka is the Kafka transport: a Source over a segmentio/kafka-go
// Reader in a consumer group and a Sink over a synchronous kafka-go Writer.
//
// # Reading and the commit protocol
//
// The Source calls Reader.FetchMessage (never ReadMessage, which commits as
// it reads) and hands out each record with an AckFunc. A
// checkpoint.Checkpointer tracks every delivered offset per partition until
// it is acked. A commit loop commits, per partition, the highest offset
// below which every record was acked with a nil error: every
// CommitInterval (default 1s), at each generation boundary, and in Close.
// A record acked with an error is never committed past, so it comes again
// after a restart or a rebalance, as does everything after it (duplicates,
// which the pipeline's deterministic output makes harmless). Commits go
// through Reader.CommitMessages with the Reader's CommitInterval set to 0, so
// each commit is synchronous and its error is seen: failures are counted
// (Stats.CommitErrors, Stats.LastCommitError) and the same offsets are tried
// again on the next tick; nothing is acked twice and nothing is lost.
//
// At most MaxInFlightPerPartition records per partition are delivered and
// unacked; Read blocks at the cap (a record fetched meanwhile is kept, not
// skipped), so memory stays bounded and a stuck partition holds back the
// Source. kafka-go's own buffer is bounded by QueueCapacity and MaxBytes.
//
// # Rebalances
//
// kafka-go's Reader runs the group protocol itself and exposes no rebalance
// callback. What it does (v0.4.51, reader.go): each generation gets its own
// commit goroutine reading the Reader's commit channel, and commits are sent
// with that generation's id; when a generation ends the goroutine drains
// queued commits into a last commit with the old generation; messages still
// buffered from the old generation are discarded by FetchMessage (their
// version is stale), and the next generation restarts each assigned
// partition from its committed offset.
//
// The hazard is a stale commit: an offset of a partition that moved to
// another member, sent during the next generation. The broker checks only
// the member and generation, not partition ownership, so it accepts it and
// can move the group's offset backwards under the new owner (kafka-go issue
// #1308, unmerged fix #1330). That loses nothing (the offset is still one
// below which everything was done) but causes re-processing and misreported
// lag. This Source avoids it: it learns each generation's assignment from
// the Reader's Logger (the messages kafka-go logs when it joins, subscribes
// and stops a generation's heartbeat), and then (1) drops the checkpoint
// state of partitions it no longer owns, so late acks of their records never
// reach a commit; (2) discards records fetched before the switch for
// partitions it does not own now, or that moved away and came back (their
// fresh state must start at the committed offset, not at a record fetched
// earlier; see checkpoint.ErrStale); (3) flushes acked offsets at the end and
// start of each generation, so a partition that moves carries as little
// uncommitted work as possible. A commit racing the boundary can still be
// stale in the narrow window between the end of a generation and the next
// assignment; that costs duplicates, never loss.
//
// Assignments, readiness (a stable generation), lag and commit counts are
// in Stats, Ready and Partitions.
//
// # Writing
//
// The Sink uses RequiredAcks=RequireAll, Async=false, explicit BatchSize and
// BatchTimeout, and the FNV-1a key hash balancer, so an output record lands
// on a partition chosen by its key (the job's key) and records of one key
// stay in order. Values longer than CompressAbove are zstd-compressed with
// the header content-encoding: zstd. A record whose key, value and headers
// still exceed MaxMessageBytes after compression fails the Write with
// transport.ErrRecordTooLarge before anything is sent (the runner dead-letters
// it as output_too_large); a broker rejection for size maps to the same
// error. Topics written by a Sink need max.message.bytes of at least
// MaxMessageBytes + 1024 (the Writer's BatchBytes is MaxMessageBytes + 1024
// and a batch's framing adds up to about 100 bytes); the broker default of
// 1,048,588 fits the default MaxMessageBytes of 1,000,000.
//
// # Security
//
// Config.TLS (CA file, client certificate, server name) and Config.SASL
// (plain, scram-sha-256, scram-sha-512) apply to Readers, Writers and
// EnsureTopics alike.
package kafka

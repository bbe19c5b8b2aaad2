// Package kafka is the Kafka transport: a Source over a segmentio/kafka-go
// ConsumerGroup with one partition Reader per assigned partition, and a Sink
// over a synchronous kafka-go Writer.
//
// # The group
//
// The Source takes each generation from ConsumerGroup.Next. A Generation
// carries this member's exact assignment and the group's committed offset
// of each assigned partition; the Source starts a Reader per partition (via
// Generation.Start, so the group waits for them when the generation ends)
// and a commit loop bound to that generation. Readiness (/readyz) is "holds
// a generation".
//
// # Sticky assignment over the eager protocol
//
// kafka-go speaks only the eager group protocol: when a member joins or
// leaves, every member's generation ends, its readers stop, and the next
// generation assigns the partitions afresh. It has no cooperative protocol
// (KIP-429), in which members give up only the partitions that move while
// the others keep going, so the Source emulates it. Each member offers the
// group protocol "hygiene-sticky-v1" first (stickyBalancer) and sends the
// partitions it owns in its join metadata; the leader keeps every partition
// with its owner and moves as few as balance needs (a join moves at most
// ⌈P/N⌉, a leave only the leaver's). A partition that must move from one
// live member to another is first withheld from everyone: its owner, told
// it lost it, drops the records it had not started, waits for the ones it
// started, commits them and rejoins (handOff), and the next generation
// gives the partition to its new owner, which reads it from where that
// work ended. So no pause waits for started work on a partition that
// stays: the pause handlers get a context that is already done, and only
// a partition that moves waits, for its own records.
//
// A member of another version that offers only "range" makes the
// coordinator choose kafka-go's range assignor (every Source offers it
// second): everything still works, but partitions then move straight to
// their new owner, so the records its old owner had started may be done
// twice (never lost).
//
// A partition this member keeps across two consecutive generations is
// resumed, not re-read: its checkpoint state (the records still in flight)
// carries over, its new reader starts after the last record it tracked,
// and its acks are committed through the new generation. The state carries
// over only when nothing else can have touched the partition: the new
// generation directly follows this member's previous one, the group's
// committed offset is the one this member committed last, and none of its
// records failed. Otherwise the partition is read again from the committed
// offset, or, when that is still the offset this member committed last
// (for example the coordinator was away, so its commits failed, and the
// member was evicted and joined again), from past the records it had
// already done: those are committed by its first commit, not repeated. When a generation ends the Source tells its transport.Revoker
// pause handlers (the runner starts no new job until the rebalance ends);
// before the first record of the next generation is delivered, it tells
// its revoke handlers which partitions it lost (or reads again): the runner
// drops their jobs not started yet, whose new owner reads them from the
// committed offset, and resumes. When no generation follows within
// SessionTimeout (the coordinator has evicted this member), every partition
// counts as lost; the member still claims them, with the generation it held
// them in, when it joins again, so unless another member held them since
// they come back to it and are read from past the work it did.
//
// # The commit protocol
//
// The Source hands out each record with an AckFunc. A
// checkpoint.Checkpointer tracks every delivered offset per partition until
// it is acked. The commit loop commits, per partition, the highest offset
// below which every record was acked with a nil error, through
// Generation.CommitOffsets: every CommitInterval (default 1s), once more
// when the generation ends (the coordinator still accepts the ending
// generation's commits while the group rebalances, so the partitions that
// move carry as little uncommitted work as possible), and in Close. Commits
// are synchronous and serialised; failures are counted (Stats.CommitErrors,
// Stats.LastCommitError) and the same offsets are tried again on the next
// tick; nothing is acked twice and nothing is lost. A record acked with an
// error is never committed past, so it comes again after a restart or a
// rebalance, as does everything after it (duplicates, which the pipeline's
// deterministic output makes harmless).
//
// A revoked partition is committed by its former owner only during its
// hand-off, through the generation that withholds it: then its state is
// dropped, so late acks of its records move no commit point, and a
// generation that ended cannot commit at all (the coordinator refuses a
// stale generation id). This is
// what kafka-go's Reader, which learns of rebalances only internally, could
// not promise (kafka-go issue #1308).
//
// At most MaxInFlightPerPartition records per partition are delivered and
// unacked; that partition's reader waits at the cap (the record it fetched
// is kept), so memory stays bounded and a stuck partition holds back only
// itself. kafka-go's own buffer is bounded by QueueCapacity and MaxBytes per
// partition.
//
// Assignments, readiness, lag and commit counts are in Stats, Ready and
// Partitions.
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
//
// May import: internal/compression, internal/transport,
// internal/transport/checkpoint.
package kafka

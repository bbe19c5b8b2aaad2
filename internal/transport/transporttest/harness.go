// Package transporttest is the conformance suite every transport passes, in
// the style of Watermill's pubsub tests: Run takes a Harness that builds
// topics, sinks and sources of one implementation and checks the contract of
// package transport against it (per-key ordering, ack exactly once,
// redelivery of unacked and nacked records after a crash or reopen, close
// semantics, the in-flight cap, keys and headers kept by a Sink, the size
// limit after compression, a randomized crash loop that must lose nothing,
// and, for a transport.Revoker, that a revoked partition's finished records
// count and its dropped ones are read again by the new owner).
//
// May import: internal/compression, internal/transport.
package transporttest

import (
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// Harness builds the pieces of one transport implementation for the suite.
// Every function fails t itself when it cannot do its job, and registers
// cleanups on t.
type Harness struct {
	// NewTopic creates an empty topic with the given number of partitions
	// and returns its (unique) name.
	NewTopic func(t *testing.T, partitions int) string
	// NewSink returns a Sink writing to topic.
	NewSink func(t *testing.T, topic string, opts SinkOptions) transport.Sink
	// NewSource opens a Source of consumer group on topic, starting at the
	// group's committed offsets (the earliest offset for a new group).
	NewSource func(t *testing.T, topic, group string, opts SourceOptions) transport.Source
	// Crash stops src the way a killed process would: no commit after this
	// point, the group released for the next Source.
	Crash func(t *testing.T, topic, group string, src transport.Source)
	// Wait is how long to wait for a record that must arrive (a consumer
	// group join included).
	Wait time.Duration
	// Quiet is how long a Read must stay empty to conclude nothing arrives.
	Quiet time.Duration
}

// SinkOptions are the Sink limits the suite needs.
type SinkOptions struct {
	MaxMessageBytes int // largest record after compression
	CompressAbove   int // compress values longer than this
}

// SourceOptions are the Source limits the suite needs.
type SourceOptions struct {
	MaxInFlightPerPartition int
}

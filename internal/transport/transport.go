package transport

import (
	"context"
	"errors"
)

// AckFunc acknowledges one record. It is called exactly once per record:
// err == nil means the record is done (its offset may be committed once every
// earlier record of its partition is done); err != nil means it is not done
// and must be delivered again, so the Source never commits past it. A second
// call returns an error wrapping ErrAlreadyAcked and changes nothing. The ctx
// bounds any waiting the ack does; acks do not wait for the commit itself.
type AckFunc func(ctx context.Context, err error) error

// Source delivers records one at a time.
type Source interface {
	// Read blocks until a record is available and returns it with its AckFunc.
	// A finite source returns ErrEndOfInput when it has nothing more; a
	// cancelled ctx returns ctx.Err(); a closed Source returns ErrClosed.
	// Read may also block while too many records of a partition are in
	// flight (unacked), until some are acked.
	Read(ctx context.Context) (Record, AckFunc, error)
	// Close flushes pending commits and leaves the consumer group. Reads
	// after Close return ErrClosed; a second Close returns nil.
	Close(ctx context.Context) error
}

// Sink writes records.
type Sink interface {
	// Write returns once every record is durable (acknowledged by all in-sync
	// replicas). A record still larger than the size limit after compression
	// fails the whole call with an error wrapping ErrRecordTooLarge and
	// nothing is written; every other error is transient and the call may be
	// retried. A Sink writes records with the same key to the same partition
	// in call order.
	Write(ctx context.Context, recs ...Record) error
	// Close flushes and releases the Sink. Writes after Close return ErrClosed.
	Close(ctx context.Context) error
}

// Copier is a Sink whose Write, once it returned nil, keeps no reference
// to the records it was given: it copied their bytes into its own request
// before the brokers acknowledged it. The caller may then reuse a written
// record's buffers (the pipeline reuses a small job's payload buffer for
// the payloads that follow). The Kafka Sink is one; the in-memory Sink
// keeps the records it is given and is not.
type Copier interface {
	Sink
	// CopiesRecords marks the Sink as a Copier; it does nothing.
	CopiesRecords()
}

var (
	// ErrEndOfInput is returned by Read of a finite Source that has delivered everything.
	ErrEndOfInput = errors.New("transport: end of input")
	// ErrRecordTooLarge is wrapped by Sink.Write for a record over the size limit after compression.
	ErrRecordTooLarge = errors.New("transport: record is larger than the maximum message size")
	// ErrClosed is returned by Read or Write after Close.
	ErrClosed = errors.New("transport: closed")
	// ErrAlreadyAcked is wrapped by an AckFunc called a second time for the same record.
	ErrAlreadyAcked = errors.New("transport: record was already acknowledged")
)

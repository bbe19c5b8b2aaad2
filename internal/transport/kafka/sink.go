package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// SinkConfig configures a Sink.
type SinkConfig struct {
	Config
	// Topic receives every record written.
	Topic string
	// MaxMessageBytes is the largest record (key + value + headers, after
	// compression) the Sink sends; larger ones fail with
	// transport.ErrRecordTooLarge. The topic's max.message.bytes must be at
	// least MaxMessageBytes + 1024 (record batch framing). Default 1,000,000
	// (the broker default max.message.bytes is 1,048,588).
	MaxMessageBytes int
	// CompressAbove compresses values longer than this with zstd and adds
	// the header content-encoding: zstd; negative disables. Default 16384.
	CompressAbove int
	// CompressionLevel is the zstd level. Default compression.LevelBetter,
	// the fastest level that shrinks base64 (images, binary tool output).
	CompressionLevel compression.Level
	// BatchSize and BatchTimeout bound how long records wait for a batch
	// (kafka-go's defaults, 100 and 1s, would add a second to every
	// synchronous Write of a small batch). Defaults 100 and 5ms.
	BatchSize    int
	BatchTimeout time.Duration
	// WriteTimeout bounds one produce request. Default 10s.
	WriteTimeout time.Duration
	// MaxAttempts is how often kafka-go tries a batch (backing off from
	// 100ms to 1s) before Write fails. Default 10, which rides out a leader
	// election or a partition still loading.
	MaxAttempts int
}

func (c SinkConfig) withDefaults() SinkConfig {
	c.Config = c.Config.withDefaults()
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = 1_000_000
	}
	if c.CompressAbove == 0 {
		c.CompressAbove = 16384
	}
	if c.CompressionLevel == "" {
		c.CompressionLevel = compression.LevelBetter
	}
	if c.BatchSize == 0 {
		c.BatchSize = 100
	}
	if c.BatchTimeout == 0 {
		c.BatchTimeout = 5 * time.Millisecond
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 10 * time.Second
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 10
	}
	return c
}

// Validate reports the first problem with c.
func (c SinkConfig) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	if c.Topic == "" {
		return errors.New("kafka: the sink topic is empty")
	}
	if c.CompressionLevel != "" {
		if _, err := compression.ParseLevel(string(c.CompressionLevel)); err != nil {
			return err
		}
	}
	if c.MaxMessageBytes < 0 || c.BatchSize < 0 || c.BatchTimeout < 0 {
		return fmt.Errorf("kafka: sink limits must not be negative (max_message_bytes %d, batch_size %d, batch_timeout %s)",
			c.MaxMessageBytes, c.BatchSize, c.BatchTimeout)
	}
	return nil
}

// Sink writes records to one topic through a synchronous kafka-go Writer:
// RequiredAcks all, records with one key on one partition (FNV-1a hash, like
// the memory transport), never async. It is safe for concurrent use.
type Sink struct {
	cfg       SinkConfig
	writer    *kafkago.Writer
	transport *kafkago.Transport
	mu        sync.RWMutex
	closed    bool
}

var _ transport.Copier = (*Sink)(nil)

// CopiesRecords marks the Sink as a transport.Copier: kafka-go encodes a
// batch into its produce request, and a synchronous WriteMessages returns
// only after every batch of its messages completed, so nothing of a
// record is read after Write returned nil.
func (s *Sink) CopiesRecords() {}

// NewSink returns a Sink writing to cfg.Topic. It connects lazily.
func NewSink(cfg SinkConfig) (*Sink, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	tr, err := cfg.transport()
	if err != nil {
		return nil, err
	}
	w := &kafkago.Writer{
		Addr:                   kafkago.TCP(cfg.Brokers...),
		Topic:                  cfg.Topic,
		Balancer:               &kafkago.Hash{},
		RequiredAcks:           kafkago.RequireAll,
		Async:                  false,
		BatchSize:              cfg.BatchSize,
		BatchTimeout:           cfg.BatchTimeout,
		BatchBytes:             int64(cfg.MaxMessageBytes) + 1024,
		WriteTimeout:           cfg.WriteTimeout,
		ReadTimeout:            cfg.WriteTimeout,
		MaxAttempts:            cfg.MaxAttempts,
		WriteBackoffMin:        100 * time.Millisecond,
		WriteBackoffMax:        time.Second,
		AllowAutoTopicCreation: false,
		Transport:              tr,
	}
	return &Sink{cfg: cfg, writer: w, transport: tr}, nil
}

// Write compresses values over CompressAbove, checks every record against
// MaxMessageBytes (nothing is sent when one is too large) and returns once
// the brokers acknowledged all of them.
func (s *Sink) Write(ctx context.Context, recs ...transport.Record) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return transport.ErrClosed
	}
	msgs := make([]kafkago.Message, len(recs))
	for i, r := range recs {
		r = r.Compressed(s.cfg.CompressAbove, s.cfg.CompressionLevel)
		if err := transport.CheckSize(r, s.cfg.MaxMessageBytes); err != nil {
			return fmt.Errorf("kafka: writing to topic %q: %w", s.cfg.Topic, err)
		}
		msgs[i] = kafkago.Message{Key: r.Key, Value: r.Value}
		if len(r.Headers) > 0 {
			msgs[i].Headers = make([]kafkago.Header, len(r.Headers))
			for j, h := range r.Headers {
				msgs[i].Headers[j] = kafkago.Header{Key: h.Key, Value: h.Value}
			}
		}
	}
	if err := s.writer.WriteMessages(ctx, msgs...); err != nil {
		return s.writeError(err)
	}
	return nil
}

// writeError maps a size rejection (by kafka-go or the broker) to
// transport.ErrRecordTooLarge; everything else is transient.
func (s *Sink) writeError(err error) error {
	var tooLarge kafkago.MessageTooLargeError
	if errors.As(err, &tooLarge) || errors.Is(err, kafkago.MessageSizeTooLarge) {
		return fmt.Errorf("kafka: writing to topic %q: %w (check the topic's max.message.bytes): %v",
			s.cfg.Topic, transport.ErrRecordTooLarge, err)
	}
	var werrs kafkago.WriteErrors
	if errors.As(err, &werrs) {
		for _, e := range werrs {
			if errors.Is(e, kafkago.MessageSizeTooLarge) {
				return fmt.Errorf("kafka: writing to topic %q: %w (check the topic's max.message.bytes): %v",
					s.cfg.Topic, transport.ErrRecordTooLarge, err)
			}
		}
	}
	return fmt.Errorf("kafka: writing %s to topic %q: %w", "records", s.cfg.Topic, err)
}

// Close waits for in-progress Writes, closes the Writer and its connections.
// Writes after Close return transport.ErrClosed.
func (s *Sink) Close(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.writer.Close()
	s.transport.CloseIdleConnections()
	if err != nil {
		return fmt.Errorf("kafka: closing the writer of topic %q: %w", s.cfg.Topic, err)
	}
	return nil
}

package memory

import (
	"context"
	"sync"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// SinkConfig configures a Sink.
type SinkConfig struct {
	Topic string
	// MaxMessageBytes is the largest record (key + value + headers, after
	// compression) the Sink accepts; 0 means 1,000,000.
	MaxMessageBytes int
	// CompressAbove compresses values longer than this many bytes with zstd;
	// negative disables compression; 0 means 16384.
	CompressAbove int
}

// Sink appends records to one topic. It is safe for concurrent use.
type Sink struct {
	b      *Broker
	cfg    SinkConfig
	mu     sync.Mutex
	closed bool
}

var _ transport.Sink = (*Sink)(nil)

// NewSink returns a Sink writing to cfg.Topic, which must exist when Write is called.
func (b *Broker) NewSink(cfg SinkConfig) *Sink {
	if cfg.MaxMessageBytes == 0 {
		cfg.MaxMessageBytes = 1_000_000
	}
	if cfg.CompressAbove == 0 {
		cfg.CompressAbove = 16384
	}
	return &Sink{b: b, cfg: cfg}
}

// Write compresses, checks and appends recs; all or nothing.
func (s *Sink) Write(ctx context.Context, recs ...transport.Record) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return transport.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	out := make([]transport.Record, len(recs))
	for i, r := range recs {
		out[i] = r.Compressed(s.cfg.CompressAbove, compression.LevelDefault)
		if err := transport.CheckSize(out[i], s.cfg.MaxMessageBytes); err != nil {
			return err
		}
	}
	return s.b.append(s.cfg.Topic, out)
}

// Close makes later Writes return transport.ErrClosed.
func (s *Sink) Close(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

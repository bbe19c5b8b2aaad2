package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/checkpoint"
)

// SourceConfig configures a Source.
type SourceConfig struct {
	Config `yaml:",inline"`
	// Topic is read by the consumer group GroupID.
	Topic   string `yaml:"topic"`
	GroupID string `yaml:"group_id"`
	// MaxInFlightPerPartition caps delivered but unacked records per
	// partition; Read blocks at the cap. Default 1000.
	MaxInFlightPerPartition int `yaml:"max_in_flight_per_partition"`
	// CommitInterval is how often acked offsets are committed. Default 1s.
	CommitInterval time.Duration `yaml:"commit_interval"`
	// CommitTimeout bounds one commit (and the final one in Close when the
	// Close context has no deadline). Default 10s.
	CommitTimeout time.Duration `yaml:"commit_timeout"`
	// MinBytes, MaxBytes and MaxWait shape fetches. Defaults 1, 10 MiB, 250ms.
	MinBytes int           `yaml:"min_bytes"`
	MaxBytes int           `yaml:"max_bytes"`
	MaxWait  time.Duration `yaml:"max_wait"`
	// QueueCapacity is how many fetched messages kafka-go buffers. Default 100.
	QueueCapacity int `yaml:"queue_capacity"`
	// SessionTimeout, HeartbeatInterval and RebalanceTimeout are the group
	// timings. Defaults 10s, 1s, 30s.
	SessionTimeout    time.Duration `yaml:"session_timeout"`
	HeartbeatInterval time.Duration `yaml:"heartbeat_interval"`
	RebalanceTimeout  time.Duration `yaml:"rebalance_timeout"`
	// Logger receives kafka-go's informational logs; ErrorLogger its errors. Both optional.
	Logger      kafkago.Logger `yaml:"-"`
	ErrorLogger kafkago.Logger `yaml:"-"`
}

func (c SourceConfig) withDefaults() SourceConfig {
	c.Config = c.Config.withDefaults()
	def := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defInt(&c.MaxInFlightPerPartition, 1000)
	defInt(&c.MinBytes, 1)
	defInt(&c.MaxBytes, 10<<20)
	defInt(&c.QueueCapacity, 100)
	def(&c.CommitInterval, time.Second)
	def(&c.CommitTimeout, 10*time.Second)
	def(&c.MaxWait, 250*time.Millisecond)
	def(&c.SessionTimeout, 10*time.Second)
	def(&c.HeartbeatInterval, time.Second)
	def(&c.RebalanceTimeout, 30*time.Second)
	return c
}

// Validate reports the first problem with c.
func (c SourceConfig) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	switch {
	case c.Topic == "":
		return errors.New("kafka: the source topic is empty")
	case c.GroupID == "":
		return errors.New("kafka: the source group_id is empty")
	case c.MaxInFlightPerPartition < 0:
		return fmt.Errorf("kafka: max_in_flight_per_partition must be positive, got %d", c.MaxInFlightPerPartition)
	case c.CommitInterval < 0:
		return fmt.Errorf("kafka: commit_interval must be positive, got %s", c.CommitInterval)
	}
	return nil
}

// Source reads a topic as a member of a consumer group (see the package
// documentation for the commit protocol). It is safe for concurrent use;
// concurrent Reads are served one at a time.
type Source struct {
	cfg    SourceConfig
	reader *kafkago.Reader
	cp     *checkpoint.Checkpointer
	group  *groupState

	readMu       sync.Mutex
	pending      *kafkago.Message // fetched but not yet tracked (Track was interrupted)
	pendingEpoch int64            // checkpointer epoch when pending was fetched

	flush     chan struct{}      // asks the commit loop to commit now
	loopCtx   context.Context    // ends the commit loop and its commit in progress
	stopLoop  context.CancelFunc // cancels loopCtx
	loopDone  chan struct{}
	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error

	commits      atomic.Int64
	commitErrors atomic.Int64
	lastErrMu    sync.Mutex
	lastErr      error
}

var _ transport.Source = (*Source)(nil)

// NewSource joins cfg.GroupID on cfg.Topic. It does not wait for the first
// assignment: Ready reports it.
func NewSource(cfg SourceConfig) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	dialer, err := cfg.dialer()
	if err != nil {
		return nil, err
	}
	cp, err := checkpoint.New(cfg.MaxInFlightPerPartition)
	if err != nil {
		return nil, err
	}
	s := &Source{
		cfg: cfg, cp: cp,
		flush: make(chan struct{}, 1), loopDone: make(chan struct{}),
	}
	s.loopCtx, s.stopLoop = context.WithCancel(context.Background())
	s.group = newGroupState(cfg.Topic, s.onAssigned, s.requestFlush)
	s.reader = kafkago.NewReader(kafkago.ReaderConfig{
		Brokers:                cfg.Brokers,
		GroupID:                cfg.GroupID,
		Topic:                  cfg.Topic,
		Dialer:                 dialer,
		QueueCapacity:          cfg.QueueCapacity,
		MinBytes:               cfg.MinBytes,
		MaxBytes:               cfg.MaxBytes,
		MaxWait:                cfg.MaxWait,
		CommitInterval:         0, // synchronous: the commit loop below batches and sees every error
		StartOffset:            kafkago.FirstOffset,
		SessionTimeout:         cfg.SessionTimeout,
		HeartbeatInterval:      cfg.HeartbeatInterval,
		RebalanceTimeout:       cfg.RebalanceTimeout,
		JoinGroupBackoff:       time.Second,
		ReadBackoffMin:         100 * time.Millisecond,
		ReadBackoffMax:         time.Second,
		Logger:                 s.group.logger(cfg.Logger),
		ErrorLogger:            cfg.ErrorLogger,
		WatchPartitionChanges:  true,
		PartitionWatchInterval: 5 * time.Second,
	})
	go s.commitLoop()
	return s, nil
}

// Read returns the next record. It blocks while the record's partition has
// MaxInFlightPerPartition records in flight; a record fetched while Read
// waits is kept for the next Read, never skipped.
func (s *Source) Read(ctx context.Context) (transport.Record, transport.AckFunc, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	for {
		if s.closed.Load() {
			return transport.Record{}, nil, transport.ErrClosed
		}
		if s.pending == nil {
			m, err := s.reader.FetchMessage(ctx)
			if err != nil {
				return transport.Record{}, nil, s.readError(ctx, err)
			}
			s.pending, s.pendingEpoch = &m, s.cp.Epoch()
		}
		m := *s.pending
		tk, err := s.cp.TrackAt(ctx, checkpoint.Key{Topic: m.Topic, Partition: m.Partition}, m.Offset, s.pendingEpoch)
		if errors.Is(err, checkpoint.ErrStale) {
			// Fetched before a rebalance moved the partition away: its owner
			// reads it from the committed offset, which never passes this record.
			s.pending = nil
			continue
		}
		if err != nil {
			return transport.Record{}, nil, err
		}
		s.pending = nil
		return toRecord(m), s.ackFunc(tk), nil
	}
}

func (s *Source) readError(ctx context.Context, err error) error {
	switch {
	case s.closed.Load() || errors.Is(err, io.EOF):
		return transport.ErrClosed
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return fmt.Errorf("kafka: fetching from topic %q for group %q: %w", s.cfg.Topic, s.cfg.GroupID, err)
	}
}

func (s *Source) ackFunc(tk *checkpoint.Ticket) transport.AckFunc {
	return func(_ context.Context, err error) error { return tk.Ack(err) }
}

func toRecord(m kafkago.Message) transport.Record {
	r := transport.Record{Key: m.Key, Value: m.Value, Topic: m.Topic, Partition: m.Partition, Offset: m.Offset}
	if len(m.Headers) > 0 {
		r.Headers = make([]transport.Header, len(m.Headers))
		for i, h := range m.Headers {
			r.Headers[i] = transport.Header{Key: h.Key, Value: h.Value}
		}
	}
	return r
}

// onAssigned is called by the group state when a generation's assignment is
// known: partitions that moved away are dropped from the checkpointer.
func (s *Source) onAssigned(partitions map[int]bool) {
	keep := make(map[checkpoint.Key]bool, len(partitions))
	for p := range partitions {
		keep[checkpoint.Key{Topic: s.cfg.Topic, Partition: p}] = true
	}
	s.cp.Assign(keep)
}

// requestFlush asks the commit loop for a commit now, without blocking.
func (s *Source) requestFlush() {
	select {
	case s.flush <- struct{}{}:
	default:
	}
}

// Close commits every acked offset (retrying until ctx ends, or for
// CommitTimeout when ctx has no deadline), leaves the group and releases the
// Reader; it returns the commit error if the offsets could not be committed. Blocked Reads return transport.ErrClosed. A second Close returns nil.
func (s *Source) Close(ctx context.Context) error {
	first := false
	s.closeOnce.Do(func() {
		first = true
		s.shutdown()
		flushErr := s.finalCommit(ctx)
		s.closeErr = errors.Join(flushErr, s.reader.Close())
	})
	if !first {
		return nil
	}
	return s.closeErr
}

// finalCommit commits acked offsets, retrying a failed commit (a rebalance
// in progress, a coordinator moving) until it lands or ctx ends; without a
// deadline on ctx it tries for CommitTimeout.
func (s *Source) finalCommit(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.CommitTimeout)
		defer cancel()
	}
	for {
		err := s.commit(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Abandon stops the Source the way a crash would: no further commit, acked
// offsets not committed yet are lost (their records come again). It leaves
// the group so the next member starts at once. For tests and for a forced
// shutdown when commits fail.
func (s *Source) Abandon() error {
	var err error
	s.closeOnce.Do(func() {
		s.shutdown()
		err = s.reader.Close()
	})
	return err
}

// shutdown marks the Source closed, wakes blocked Reads and stops the commit loop.
func (s *Source) shutdown() {
	s.closed.Store(true)
	s.cp.Close()
	s.stopLoop()
	<-s.loopDone
}

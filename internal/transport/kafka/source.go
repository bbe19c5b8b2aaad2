package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/checkpoint"
)

// SourceConfig configures a Source.
type SourceConfig struct {
	Config
	// Topic is read by the consumer group GroupID.
	Topic   string
	GroupID string
	// MaxInFlightPerPartition caps delivered but unacked records per
	// partition; that partition's reader waits at the cap. Default 1000.
	MaxInFlightPerPartition int
	// CommitInterval is how often acked offsets are committed. Default 1s.
	CommitInterval time.Duration
	// CommitTimeout bounds one request to the group coordinator (a commit,
	// a join) and the final commit in Close when the Close context has no
	// deadline. Default 10s.
	CommitTimeout time.Duration
	// MinBytes, MaxBytes and MaxWait shape fetches. Defaults 1, 10 MiB, 250ms.
	MinBytes int
	MaxBytes int
	MaxWait  time.Duration
	// QueueCapacity is how many fetched messages kafka-go buffers per
	// partition, beyond the one the partition's reader holds. Default 1:
	// records can be megabytes (images), and each assigned partition has a
	// reader, so a deeper queue would hold partitions x QueueCapacity
	// records outside the runner's in-flight byte budget (with 100, a
	// backlog of 8 MB image jobs on 4 partitions held 3 GB). Fetches still
	// bring whole batches (MaxBytes); the runner's budget is the read-ahead.
	QueueCapacity int
	// SessionTimeout, HeartbeatInterval and RebalanceTimeout are the group
	// timings. Defaults 10s, 1s, 30s.
	SessionTimeout    time.Duration
	HeartbeatInterval time.Duration
	RebalanceTimeout  time.Duration
	// RangeOnly offers only kafka-go's range assignor, as workers before the
	// sticky one did: for tests of a group of mixed versions and for the
	// before/after measurement of partitions moved (bench/rebalance).
	RangeOnly bool
	// Logger receives kafka-go's informational logs; ErrorLogger its errors
	// and the Source's own (a fetch that failed and is retried). Both optional.
	Logger      kafkago.Logger
	ErrorLogger kafkago.Logger
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
	defInt(&c.QueueCapacity, 1)
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
// documentation for the group and commit protocol). It is safe for
// concurrent use.
type Source struct {
	cfg    SourceConfig
	dialer *kafkago.Dialer
	group  *kafkago.ConsumerGroup
	cp     *checkpoint.Checkpointer
	out    chan delivery // unbuffered: partition readers hand tracked records to Read

	mu         sync.Mutex
	gen        *kafkago.Generation // the current generation; nil between generations
	lastGen    int32               // id of the latest generation, -1 before the first
	lastMember string
	parts      []int // assigned in the latest generation, sorted; none once they expired
	// claim is what this member tells the balancer it owns (see
	// ownership): the latest generation's partitions, kept when they
	// expire.
	claim      []int
	readers    map[int]*kafkago.Reader
	rebalances int64
	onRevoke   []func([]transport.Partition)
	onPause    []func(context.Context)
	expiry     *time.Timer // gives the partitions up when no generation follows an ended one

	commitMu  sync.Mutex // one commit at a time, so the broker never sees them out of order
	abandoned bool       // guarded by commitMu: no commit after Abandon

	closing   chan struct{} // closed by Close and Abandon: Read returns ErrClosed
	loopCtx   context.Context
	stopLoop  context.CancelFunc
	loopDone  chan struct{}
	closeOnce sync.Once
	closeErr  error

	commits      atomic.Int64
	commitErrors atomic.Int64
	lastErrMu    sync.Mutex
	lastErr      error
}

// delivery is a fetched record, tracked in the checkpointer.
type delivery struct {
	msg kafkago.Message
	tk  *checkpoint.Ticket
}

var (
	_ transport.Source  = (*Source)(nil)
	_ transport.Revoker = (*Source)(nil)
)

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
		cfg: cfg, dialer: dialer, cp: cp, out: make(chan delivery),
		lastGen: -1, readers: map[int]*kafkago.Reader{},
		closing: make(chan struct{}), loopDone: make(chan struct{}),
	}
	group, err := kafkago.NewConsumerGroup(kafkago.ConsumerGroupConfig{
		ID:                     cfg.GroupID,
		Brokers:                cfg.Brokers,
		Dialer:                 dialer,
		Topics:                 []string{cfg.Topic},
		HeartbeatInterval:      cfg.HeartbeatInterval,
		SessionTimeout:         cfg.SessionTimeout,
		RebalanceTimeout:       cfg.RebalanceTimeout,
		JoinGroupBackoff:       time.Second,
		WatchPartitionChanges:  true,
		PartitionWatchInterval: 5 * time.Second,
		StartOffset:            kafkago.FirstOffset,
		Timeout:                cfg.CommitTimeout,
		Logger:                 cfg.Logger,
		ErrorLogger:            cfg.ErrorLogger,
		GroupBalancers:         s.balancers(),
	})
	if err != nil {
		return nil, fmt.Errorf("kafka: joining group %q: %w", cfg.GroupID, err)
	}
	s.group = group
	s.loopCtx, s.stopLoop = context.WithCancel(context.Background())
	go s.groupLoop()
	return s, nil
}

// OnRevoke registers fn to be told, when each new generation begins and
// before any of its records is delivered, the partitions it takes away from
// this member (or makes it read again from the committed offset).
func (s *Source) OnRevoke(fn func([]transport.Partition)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onRevoke = append(s.onRevoke, fn)
}

// OnPause registers fn to be told when a generation ends. fn gets a context
// that is already done: it should start no new record, but need not wait
// for the records it started, since under the sticky protocol no partition
// moves straight from this member to another (the partitions that move are
// handed off in the next generation, see handOff), and every other
// partition stays.
func (s *Source) OnPause(fn func(context.Context)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onPause = append(s.onPause, fn)
}

// balancers are the assignors this member offers, in order of preference.
func (s *Source) balancers() []kafkago.GroupBalancer {
	if s.cfg.RangeOnly {
		return []kafkago.GroupBalancer{kafkago.RangeGroupBalancer{}}
	}
	return []kafkago.GroupBalancer{stickyBalancer{owned: s.ownership}, kafkago.RangeGroupBalancer{}}
}

// ownership is what this member owns, for its join metadata: the latest
// generation's partitions, with that generation's id, even after they
// expired. A member evicted while the coordinator was away (paused, moving)
// still claims them when it joins again, so the balancer gives each back to
// it unless a member that held it in a later generation claims it too (the
// higher generation wins). Given back, a partition is read from past the
// records this member did and could not commit (see restart), where sent
// to the other member it would be read again from the last commit: every
// job done while the commits failed would be done twice.
func (s *Source) ownership() ownership {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ownership{Generation: s.lastGen, Topics: map[string][]int{s.cfg.Topic: slices.Clone(s.claim)}}
}

// ended is called when gen ends, before its final commit: it tells the
// pause handlers, and gives every partition up if no generation follows
// within the session timeout (the coordinator has then given them to
// other members).
func (s *Source) ended(gen *kafkago.Generation) {
	s.mu.Lock()
	if s.gen == gen {
		s.gen = nil
	}
	handlers := slices.Clone(s.onPause)
	if s.expiry != nil {
		s.expiry.Stop()
	}
	s.expiry = time.AfterFunc(s.cfg.SessionTimeout, func() { s.expire(gen.ID) })
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(s.loopCtx)
	cancel()
	for _, fn := range handlers {
		fn(ctx)
	}
}

// expire gives up the partitions of generation id when no generation
// followed it: the revoke handlers are told. Their state stays until the
// next generation begins (nothing commits without one), and so does the
// claim on them (see ownership); then a partition not assigned again is
// dropped, and one that is starts past the records done here if no one
// committed it since (see restart).
func (s *Source) expire(id int32) {
	s.mu.Lock()
	if s.gen != nil || s.lastGen != id || s.isClosing() {
		s.mu.Unlock()
		return
	}
	lost := s.lostLocked(nil)
	s.parts = nil
	handlers := slices.Clone(s.onRevoke)
	s.mu.Unlock()
	for _, fn := range handlers {
		fn(lost)
	}
}

// lostLocked returns the partitions of the latest generation that are not
// in resumed; the caller holds s.mu.
func (s *Source) lostLocked(resumed map[int]bool) []transport.Partition {
	var lost []transport.Partition
	for _, p := range s.parts {
		if !resumed[p] {
			lost = append(lost, transport.Partition{Topic: s.cfg.Topic, Partition: p})
		}
	}
	return lost
}

// Read returns the next record of any assigned partition. Each partition's
// reader waits while the partition has MaxInFlightPerPartition records in
// flight, so one full partition does not hold back the others.
func (s *Source) Read(ctx context.Context) (transport.Record, transport.AckFunc, error) {
	select {
	case <-s.closing:
		return transport.Record{}, nil, transport.ErrClosed
	default:
	}
	select {
	case d := <-s.out:
		return toRecord(d.msg), s.ackFunc(d.tk), nil
	case <-s.closing:
		return transport.Record{}, nil, transport.ErrClosed
	case <-ctx.Done():
		return transport.Record{}, nil, ctx.Err()
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

// groupLoop takes each generation from the consumer group until Close.
// ConsumerGroup retries joins itself (backing off after an error); its
// errors are logged here.
func (s *Source) groupLoop() {
	defer close(s.loopDone)
	for {
		gen, err := s.group.Next(s.loopCtx)
		if err != nil {
			if s.loopCtx.Err() != nil || errors.Is(err, kafkago.ErrGroupClosed) {
				return
			}
			s.logError("kafka: group %q: %v (the group retries)", s.cfg.GroupID, err)
			continue
		}
		s.begin(gen)
	}
}

// begin starts generation gen: it decides for each assigned partition
// whether this member's state of it carries over (see resumable), tells the
// revoke handlers which partitions were lost or are read again (possibly
// none: the handlers resume after the pause), then starts
// a reader per partition and the generation's commit loop.
func (s *Source) begin(gen *kafkago.Generation) {
	assigned := gen.Assignments[s.cfg.Topic]
	keep := make(map[checkpoint.Key]bool, len(assigned))
	for _, a := range assigned {
		keep[s.key(a.ID)] = true
	}
	s.mu.Lock()
	if s.expiry != nil {
		s.expiry.Stop()
	}
	rebalanced := s.lastGen >= 0 // the first generation ends no pause
	consecutive := rebalanced && gen.ID == s.lastGen+1 && gen.MemberID == s.lastMember
	// the partitions this member held and lost are handed off: their state
	// stays until the records started on them are acked and committed.
	var handoff []checkpoint.Key
	if consecutive {
		for _, p := range s.claim {
			if k := s.key(p); !keep[k] {
				handoff = append(handoff, k)
				keep[k] = true
			}
		}
	}
	s.cp.Assign(keep)
	starts := make(map[int]int64, len(assigned))
	parts := make([]int, 0, len(assigned))
	resumed := map[int]bool{}
	for _, a := range assigned {
		parts = append(parts, a.ID)
		if next, ok := s.resumable(consecutive, a); ok {
			starts[a.ID], resumed[a.ID] = next, true
			continue
		}
		starts[a.ID] = s.restart(a)
	}
	lost := s.lostLocked(resumed)
	slices.Sort(parts)
	withheld := !consecutive && claimsMissing(s.claim, parts)
	s.gen, s.lastGen, s.lastMember, s.parts, s.claim = gen, gen.ID, gen.MemberID, parts, parts
	s.rebalances++
	handlers := slices.Clone(s.onRevoke)
	s.mu.Unlock()

	if rebalanced {
		for _, fn := range handlers {
			fn(lost)
		}
	}
	epoch := s.cp.Epoch()
	for _, p := range parts {
		start := starts[p]
		gen.Start(func(ctx context.Context) { s.readPartition(ctx, p, start, epoch) })
	}
	gen.Start(func(ctx context.Context) { s.commitLoop(ctx, gen) })
	if len(handoff) > 0 {
		gen.Start(func(ctx context.Context) { s.handOff(ctx, gen, handoff) })
	}
	if withheld {
		// A partition this member claimed and was not given may be withheld
		// (its claim was over its share): only a rebalance assigns it, and
		// without a consecutive generation there is no hand-off to end this
		// one. A Start function that returns ends it: the member rejoins
		// claiming only what it holds now.
		gen.Start(func(context.Context) {})
	}
}

// claimsMissing reports whether a partition of claim is not in assigned
// (sorted).
func claimsMissing(claim, assigned []int) bool {
	for _, p := range claim {
		if _, ok := slices.BinarySearch(assigned, p); !ok {
			return true
		}
	}
	return false
}

// handOff ends the move of partitions this member lost in gen (the sticky
// balancer withholds them from everyone meanwhile): it waits, up to half of
// RebalanceTimeout, until every record this member delivered of them is
// acked (the runner drops the ones not started when it is told of the
// revocation, and finishes the ones started), commits them through gen and
// forgets them. Returning ends gen for this member, which rejoins without
// them, so the next generation gives them to their new owner, which reads
// them from where this member's work ended: nothing is done twice. When
// gen ends first, the final commit of gen covers them.
func (s *Source) handOff(ctx context.Context, gen *kafkago.Generation, keys []checkpoint.Key) {
	deadline := time.NewTimer(s.cfg.RebalanceTimeout / 2)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
wait:
	for !s.settled(keys) {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			s.logError("kafka: group %q: records of partitions %v still in flight after %s; handing them off", s.cfg.GroupID, keys, s.cfg.RebalanceTimeout/2)
			break wait
		case <-tick.C:
		}
	}
	_ = s.commit(gen) // a failure is counted; the new owner then reads from the last commit
	s.cp.Forget(keys...)
}

// settled reports whether no record of keys is in flight.
func (s *Source) settled(keys []checkpoint.Key) bool {
	inflight := s.cp.InFlight()
	for _, k := range keys {
		if inflight[k] > 0 {
			return false
		}
	}
	return true
}

// resumable reports whether the member's state of partition a carries over
// into the new generation, and the offset its reader resumes at. It does
// when the generation directly follows this member's previous one (no other
// generation could have given the partition to someone else in between),
// the group's committed offset is the one this member committed last (no
// one else committed it), and none of its records failed. Then the records
// still in flight stay this member's work and are committed through the new
// generation; nothing is read twice. The caller holds s.mu.
func (s *Source) resumable(consecutive bool, a kafkago.PartitionAssignment) (int64, bool) {
	next, committed, ok := s.cp.Position(s.key(a.ID))
	if !consecutive || !ok || committed != max(a.Offset, -1) {
		return 0, false
	}
	if next < 0 {
		return a.Offset, true
	}
	return next, true
}

// restart resets the state of partition a, read again in the new
// generation, and returns where its reader starts: at the group's
// committed offset, or, when that is still the offset this member
// committed last (no one else committed the partition since), past the
// records this member had already done (acked with a nil error) but not
// committed, for example while the coordinator was away: their work is not
// repeated, and the first commit covers them. The caller holds s.mu.
func (s *Source) restart(a kafkago.PartitionAssignment) int64 {
	key := s.key(a.ID)
	start := a.Offset
	if point, committed, ok := s.cp.Done(key); ok && committed == max(a.Offset, -1) && point > max(a.Offset, 0) {
		start = point
	}
	s.cp.Reset(key, a.Offset)
	return start
}

func (s *Source) key(partition int) checkpoint.Key {
	return checkpoint.Key{Topic: s.cfg.Topic, Partition: partition}
}

// readPartition reads one partition from start until the generation ends,
// tracks each record and hands it to Read. A record tracked but not handed
// over when the generation ends is released, so the next reader starts at it.
// It returns only when ctx ends: a Start function that returns ends the
// generation.
func (s *Source) readPartition(ctx context.Context, partition int, start, epoch int64) {
	r := kafkago.NewReader(kafkago.ReaderConfig{
		Brokers:        s.cfg.Brokers,
		Topic:          s.cfg.Topic,
		Partition:      partition,
		Dialer:         s.dialer,
		QueueCapacity:  s.cfg.QueueCapacity,
		MinBytes:       s.cfg.MinBytes,
		MaxBytes:       s.cfg.MaxBytes,
		MaxWait:        s.cfg.MaxWait,
		ReadBackoffMin: 100 * time.Millisecond,
		ReadBackoffMax: time.Second,
		Logger:         s.cfg.Logger,
		ErrorLogger:    s.cfg.ErrorLogger,
	})
	defer func() {
		s.mu.Lock()
		if s.readers[partition] == r {
			delete(s.readers, partition)
		}
		s.mu.Unlock()
		_ = r.Close()
	}()
	if err := r.SetOffset(start); err != nil {
		s.logError("kafka: partition %s/%d: setting the offset %d: %v", s.cfg.Topic, partition, start, err)
		<-ctx.Done()
		return
	}
	s.mu.Lock()
	s.readers[partition] = r
	s.mu.Unlock()
	key := s.key(partition)
	backoff := 100 * time.Millisecond
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.logError("kafka: fetching %s/%d: %v (retrying)", s.cfg.Topic, partition, err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		tk, err := s.cp.TrackAt(ctx, key, m.Offset, epoch)
		if err != nil { // the generation ended, or the Source is closing
			<-ctx.Done()
			return
		}
		select {
		case s.out <- delivery{msg: m, tk: tk}:
		case <-ctx.Done():
			tk.Release()
			return
		}
	}
}

func (s *Source) logError(format string, args ...any) {
	if s.cfg.ErrorLogger != nil {
		s.cfg.ErrorLogger.Printf(format, args...)
	}
}

// current returns the current generation, nil between generations.
func (s *Source) current() *kafkago.Generation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// Close commits every acked offset through the current generation
// (retrying until ctx ends, or for CommitTimeout when ctx has no deadline),
// leaves the group and stops the readers; it returns the commit error if
// the offsets could not be committed. Blocked Reads return
// transport.ErrClosed. A second Close returns nil.
func (s *Source) Close(ctx context.Context) error {
	first := false
	s.closeOnce.Do(func() {
		first = true
		close(s.closing)
		flushErr := s.finalCommit(ctx)
		s.stop()
		s.closeErr = flushErr
	})
	if !first {
		return nil
	}
	return s.closeErr
}

// Abandon stops the Source the way a crash would: no further commit, acked
// offsets not committed yet are lost (their records come again). It leaves
// the group so the next member starts at once. For tests and for a forced
// shutdown when commits fail.
func (s *Source) Abandon() error {
	s.closeOnce.Do(func() {
		s.commitMu.Lock()
		s.abandoned = true
		s.commitMu.Unlock()
		close(s.closing)
		s.stop()
	})
	return nil
}

// stop wakes blocked readers, leaves the group (which ends the generation
// and waits for its readers and commit loop) and ends the group loop.
func (s *Source) stop() {
	s.cp.Close()
	_ = s.group.Close()
	s.stopLoop()
	<-s.loopDone
	s.mu.Lock()
	s.gen = nil
	if s.expiry != nil {
		s.expiry.Stop()
	}
	s.mu.Unlock()
}

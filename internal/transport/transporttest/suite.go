package transporttest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// Run runs the whole conformance suite against h.
func Run(t *testing.T, h Harness) {
	t.Run("SinkKeepsKeysValuesAndHeaders", func(t *testing.T) { testSinkKeeps(t, h) })
	t.Run("PerKeyOrdering", func(t *testing.T) { testPerKeyOrdering(t, h) })
	t.Run("AckExactlyOnce", func(t *testing.T) { testAckExactlyOnce(t, h) })
	t.Run("CloseFlushesAndRedeliversUnackedAndNacked", func(t *testing.T) { testCloseRedelivers(t, h) })
	t.Run("CrashRedeliversUnacked", func(t *testing.T) { testCrashRedelivers(t, h) })
	t.Run("CloseSemantics", func(t *testing.T) { testCloseSemantics(t, h) })
	t.Run("CloseUnblocksRead", func(t *testing.T) { testCloseUnblocksRead(t, h) })
	t.Run("ReadReturnsContextError", func(t *testing.T) { testReadCancel(t, h) })
	t.Run("InFlightCapBlocksRead", func(t *testing.T) { testInFlightCap(t, h) })
	t.Run("RecordTooLargeAfterCompression", func(t *testing.T) { testTooLarge(t, h) })
	t.Run("CrashLoopLosesNothing", func(t *testing.T) { testCrashLoop(t, h) })
	t.Run("RevokedPartitionsHandOff", func(t *testing.T) { testRevocation(t, h) })
}

var defaultSink = SinkOptions{MaxMessageBytes: 1 << 20, CompressAbove: 16 << 10}
var defaultSource = SourceOptions{MaxInFlightPerPartition: 1000}

func testSinkKeeps(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 4)
	sink := h.NewSink(t, topic, defaultSink)
	var want []transport.Record
	for i := range 20 {
		want = append(want, transport.Record{
			Key:     []byte(fmt.Sprintf("tenant/session-%d", i%5)),
			Value:   []byte(fmt.Sprintf(`{"n":%d}`, i)),
			Headers: []transport.Header{{Key: "trace-id", Value: []byte(strconv.Itoa(i))}, {Key: "empty", Value: []byte{}}},
		})
	}
	write(t, sink, want...)
	src := h.NewSource(t, topic, group(t), defaultSource)
	got := readN(t, h, src, len(want))
	partitionOfKey := map[string]int{}
	for _, d := range got {
		r := d.rec
		i, err := strconv.Atoi(string(mustHeader(t, r, "trace-id")))
		if err != nil {
			t.Fatalf("trace-id header %q: %v", mustHeader(t, r, "trace-id"), err)
		}
		w := want[i]
		if !bytes.Equal(r.Key, w.Key) || !bytes.Equal(r.Value, w.Value) {
			t.Fatalf("record %d read as key %q value %q, want key %q value %q", i, r.Key, r.Value, w.Key, w.Value)
		}
		if v := mustHeader(t, r, "empty"); len(v) != 0 {
			t.Fatalf("empty header read as %q", v)
		}
		if r.Topic != topic || r.SourceRef() != fmt.Sprintf("%s/%d/%d", topic, r.Partition, r.Offset) {
			t.Fatalf("record %d has topic %q and source %q", i, r.Topic, r.SourceRef())
		}
		if p, seen := partitionOfKey[string(r.Key)]; seen && p != r.Partition {
			t.Fatalf("key %q landed on partitions %d and %d", r.Key, p, r.Partition)
		}
		partitionOfKey[string(r.Key)] = r.Partition
		ack(t, d, nil)
	}
}

func testPerKeyOrdering(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 4)
	sink := h.NewSink(t, topic, defaultSink)
	const keys, perKey = 6, 25
	for batch := range 5 {
		var recs []transport.Record
		for n := batch * perKey / 5; n < (batch+1)*perKey/5; n++ {
			for k := range keys {
				recs = append(recs, transport.Record{Key: []byte("key-" + strconv.Itoa(k)), Value: []byte(strconv.Itoa(n))})
			}
		}
		write(t, sink, recs...)
	}
	src := h.NewSource(t, topic, group(t), defaultSource)
	last := map[string]int{}
	for _, d := range readN(t, h, src, keys*perKey) {
		n, _ := strconv.Atoi(string(d.rec.Value))
		if prev, ok := last[string(d.rec.Key)]; ok && n != prev+1 {
			t.Fatalf("key %q: value %d after %d", d.rec.Key, n, prev)
		}
		last[string(d.rec.Key)] = n
		ack(t, d, nil)
	}
	for k := range keys {
		if got := last["key-"+strconv.Itoa(k)]; got != perKey-1 {
			t.Fatalf("key-%d ended at %d, want %d", k, got, perKey-1)
		}
	}
}

func testAckExactlyOnce(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 1)
	write(t, h.NewSink(t, topic, defaultSink), numbered(4)...)
	g := group(t)
	src := h.NewSource(t, topic, g, defaultSource)
	got := readN(t, h, src, 3)
	ack(t, got[0], nil)
	if err := got[0].ack(context.Background(), errors.New("late failure")); !errors.Is(err, transport.ErrAlreadyAcked) {
		t.Fatalf("second ack of offset %d = %v, want ErrAlreadyAcked", got[0].rec.Offset, err)
	}
	ack(t, got[1], nil)
	if err := got[1].ack(context.Background(), nil); !errors.Is(err, transport.ErrAlreadyAcked) {
		t.Fatalf("second ok-ack = %v, want ErrAlreadyAcked", err)
	}
	ack(t, got[2], errors.New("transient"))
	closeSource(t, src)
	// The late failure on offset 0 changed nothing: the group resumes at 2.
	src = h.NewSource(t, topic, g, defaultSource)
	again := readN(t, h, src, 2)
	if again[0].rec.Offset != 2 || again[1].rec.Offset != 3 {
		t.Fatalf("after reopen read offsets %d,%d; want 2,3", again[0].rec.Offset, again[1].rec.Offset)
	}
	ack(t, again[0], nil)
	ack(t, again[1], nil)
}

func testCloseRedelivers(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 1)
	write(t, h.NewSink(t, topic, defaultSink), numbered(6)...)
	g := group(t)
	src := h.NewSource(t, topic, g, defaultSource)
	got := readN(t, h, src, 6)
	ack(t, got[0], nil)
	ack(t, got[1], nil)
	ack(t, got[2], errors.New("sink unavailable")) // nacked: never committed past
	ack(t, got[3], nil)
	ack(t, got[4], nil)
	// got[5] is never acked.
	closeSource(t, src)

	src = h.NewSource(t, topic, g, defaultSource)
	again := readN(t, h, src, 4)
	for i, d := range again {
		if want := int64(2 + i); d.rec.Offset != want || string(d.rec.Value) != strconv.Itoa(int(want)) {
			t.Fatalf("redelivery %d: offset %d value %q, want offset %d", i, d.rec.Offset, d.rec.Value, want)
		}
		ack(t, d, nil)
	}
	closeSource(t, src)
	src = h.NewSource(t, topic, g, defaultSource)
	expectNothing(t, h, src)
}

func testCrashRedelivers(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 1)
	write(t, h.NewSink(t, topic, defaultSink), numbered(4)...)
	g := group(t)
	src := h.NewSource(t, topic, g, defaultSource)
	got := readN(t, h, src, 4)
	ack(t, got[0], nil)
	ack(t, got[2], nil) // done, but after the unacked offset 1
	h.Crash(t, topic, g, src)
	if err := got[1].ack(context.Background(), nil); err != nil && !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("ack after crash = %v, want nil or ErrClosed", err)
	}

	src = h.NewSource(t, topic, g, defaultSource)
	// At least once: offset 1 and 3 come again; offset 0 may come again if
	// its commit had not reached the broker before the crash.
	seen := map[int64]bool{}
	for !seen[3] {
		d := readN(t, h, src, 1)[0]
		if d.rec.Offset > 1 && !seen[1] {
			t.Fatalf("offset %d redelivered before the unacked offset 1", d.rec.Offset)
		}
		seen[d.rec.Offset] = true
		ack(t, d, nil)
	}
	if !seen[1] || !seen[2] {
		t.Fatalf("after the crash saw offsets %v, want 1, 2 and 3", seen)
	}
}

func testCloseSemantics(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 1)
	sink := h.NewSink(t, topic, defaultSink)
	write(t, sink, numbered(1)...)
	src := h.NewSource(t, topic, group(t), defaultSource)
	d := readN(t, h, src, 1)[0]
	ack(t, d, nil)
	closeSource(t, src)
	if _, _, err := src.Read(context.Background()); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Read after Close = %v, want ErrClosed", err)
	}
	if err := src.Close(context.Background()); err != nil {
		t.Fatalf("second Source.Close = %v, want nil", err)
	}
	if err := sink.Close(context.Background()); err != nil {
		t.Fatalf("Sink.Close = %v", err)
	}
	if err := sink.Write(context.Background(), numbered(1)...); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Write after Close = %v, want ErrClosed", err)
	}
}

func testCloseUnblocksRead(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 1)
	src := h.NewSource(t, topic, group(t), defaultSource)
	got := make(chan error, 1)
	go func() {
		_, _, err := src.Read(context.Background())
		got <- err
	}()
	closeSource(t, src)
	if err := <-got; !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Read blocked during Close = %v, want ErrClosed", err)
	}
}

func testReadCancel(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 2)
	src := h.NewSource(t, topic, group(t), defaultSource)
	ctx, cancel := context.WithTimeout(context.Background(), h.Quiet)
	defer cancel()
	if _, _, err := src.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Read on an empty topic = %v, want DeadlineExceeded", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, _, err := src.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with a cancelled context = %v, want Canceled", err)
	}
}

func testInFlightCap(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 1)
	write(t, h.NewSink(t, topic, defaultSink), numbered(3)...)
	src := h.NewSource(t, topic, group(t), SourceOptions{MaxInFlightPerPartition: 2})
	got := readN(t, h, src, 2)
	expectNothing(t, h, src) // the third record waits for room
	ack(t, got[0], nil)
	third := readN(t, h, src, 1)[0]
	if third.rec.Offset != 2 {
		t.Fatalf("after an ack read offset %d, want 2 (no record may be skipped)", third.rec.Offset)
	}
	ack(t, got[1], nil)
	ack(t, third, nil)
}

func testTooLarge(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 1)
	sink := h.NewSink(t, topic, SinkOptions{MaxMessageBytes: 64 << 10, CompressAbove: 1 << 10})
	random := make([]byte, 100<<10)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	err := sink.Write(context.Background(),
		transport.Record{Key: []byte("small"), Value: []byte("first")},
		transport.Record{Key: []byte("big"), Value: random})
	if !errors.Is(err, transport.ErrRecordTooLarge) {
		t.Fatalf("Write of an incompressible 100 KiB value = %v, want ErrRecordTooLarge", err)
	}
	zeros := make([]byte, 200<<10)
	write(t, sink, transport.Record{Key: []byte("zeros"), Value: zeros})

	src := h.NewSource(t, topic, group(t), defaultSource)
	d := readN(t, h, src, 1)[0]
	if string(d.rec.Key) != "zeros" {
		t.Fatalf("first record has key %q; the failed Write must write nothing", d.rec.Key)
	}
	if enc, _ := d.rec.Header(compression.HeaderContentEncoding); string(enc) != compression.EncodingZstd {
		t.Fatalf("compressed record has content-encoding %q", enc)
	}
	plain, err := compression.Decode(d.rec.Value, d.rec.ContentEncoding(), 1<<20)
	if err != nil || !bytes.Equal(plain, zeros) {
		t.Fatalf("decoded value: %v (len %d)", err, len(plain))
	}
	ack(t, d, nil)
}

// testRevocation joins a second member to a group whose first member holds
// records of every partition unacked. The first member must be told which
// partitions it lost; of each lost partition it then finishes its lowest
// record (acked nil: work started before the revocation) and drops the
// rest (acked with transport.ErrRevoked, as the runner does with jobs not
// started). The finished record's ack counts: the second member reads each
// moved partition from the first dropped record, nothing before it. A
// transport that never revokes partitions (one member owns a group's
// topic) has nothing to show here.
func testRevocation(t *testing.T, h Harness) {
	topic := h.NewTopic(t, 4)
	var recs []transport.Record
	for i := range 40 {
		recs = append(recs, transport.Record{Key: []byte("key-" + strconv.Itoa(i)), Value: []byte(strconv.Itoa(i))})
	}
	write(t, h.NewSink(t, topic, defaultSink), recs...)
	g := group(t)
	first := h.NewSource(t, topic, g, defaultSource)
	rv, ok := first.(transport.Revoker)
	if !ok {
		t.Skip("this transport gives a group's topic to one member, which never loses a partition")
	}
	lost := make(chan []transport.Partition, 4)
	var paused atomic.Int32
	rv.OnPause(func(context.Context) { paused.Add(1) })
	rv.OnRevoke(func(ps []transport.Partition) {
		if paused.Load() == 0 {
			t.Error("OnRevoke was called without an OnPause before it")
		}
		if len(ps) > 0 {
			lost <- ps
		}
	})
	held := readN(t, h, first, len(recs))
	perPartition := map[int]int{}
	for _, d := range held {
		perPartition[d.rec.Partition]++
	}

	second := h.NewSource(t, topic, g, defaultSource)
	var revoked []transport.Partition
	select {
	case revoked = <-lost:
	case <-time.After(h.Wait):
		t.Fatalf("the first member was not told of a revocation within %s of a second member joining", h.Wait)
	}
	moved := map[int]bool{}
	want := 0
	for _, p := range revoked {
		if p.Topic != topic {
			t.Fatalf("revoked partition %v is not of topic %s", p, topic)
		}
		moved[p.Partition] = true
		want += perPartition[p.Partition] - 1
	}
	for _, d := range held {
		switch {
		case !moved[d.rec.Partition] || d.rec.Offset == 0:
			ack(t, d, nil)
		default:
			ack(t, d, transport.ErrRevoked)
		}
	}
	got := readN(t, h, second, want)
	for _, d := range got {
		if !moved[d.rec.Partition] {
			t.Fatalf("the second member read %s of a partition the first one kept", d.rec.SourceRef())
		}
		ack(t, d, nil)
	}
	lowest := map[int]int64{}
	for _, d := range got {
		if off, seen := lowest[d.rec.Partition]; !seen || d.rec.Offset < off {
			lowest[d.rec.Partition] = d.rec.Offset
		}
	}
	for p := range moved {
		if perPartition[p] > 1 && lowest[p] != 1 {
			t.Fatalf("the new owner of partition %d started at offset %d, want 1: the first member finished offset 0 and dropped the rest", p, lowest[p])
		}
	}
	expectNothing(t, h, second)
	t.Logf("partitions %v moved with %d records dropped; the new owner read them from the first dropped one", revoked, want)
}

package kafka

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// BenchmarkConsumeProduceAckApacheKafka measures the no-op pipeline ceiling
// through a real broker: each op reads one record from a consumer group,
// writes it to an output topic (acks=all, synchronous) and acks it. The
// input (b.N records of 1 KiB over 64 keys, 4 partitions) is produced before
// the timer starts, and the group join is waited for. Run with a bounded count, e.g. -benchtime=20000x.
func BenchmarkConsumeProduceAckApacheKafka(b *testing.B) {
	brokers := realBrokers(b)
	for _, workers := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) { benchLoop(b, brokers, workers) })
	}
}

// BenchmarkConsumeProduceAckEmbedded is the same loop through the kfake broker.
func BenchmarkConsumeProduceAckEmbedded(b *testing.B) {
	br := startEmbedded(b)
	for _, workers := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) { benchLoop(b, br, workers) })
	}
}

func benchLoop(b *testing.B, brokers []string, workers int) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	in, out := benchName("in"), benchName("out")
	if err := EnsureTopics(ctx, brokers, []string{in, out}, 4); err != nil {
		b.Fatal(err)
	}
	feed, err := NewSink(SinkConfig{Config: Config{Brokers: brokers}, Topic: in, BatchSize: 1000})
	if err != nil {
		b.Fatal(err)
	}
	value := make([]byte, 1024)
	batch := make([]transport.Record, 0, 1000)
	for i := range b.N {
		batch = append(batch, transport.Record{Key: []byte(fmt.Sprintf("tenant/session-%d", i%64)), Value: value})
		if len(batch) == cap(batch) || i == b.N-1 {
			if err := feed.Write(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	_ = feed.Close(ctx)

	src, err := NewSource(SourceConfig{Config: Config{Brokers: brokers}, Topic: in, GroupID: benchName("group"),
		MaxInFlightPerPartition: 4 * workers, HeartbeatInterval: 300 * time.Millisecond, SessionTimeout: 6 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close(ctx)
	sink, err := NewSink(SinkConfig{Config: Config{Brokers: brokers}, Topic: out, BatchTimeout: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	defer sink.Close(ctx)

	for !src.Ready() { // the group join is not part of the loop
		if ctx.Err() != nil {
			b.Fatal("the source never joined its group")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	left := b.N
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				if left == 0 {
					mu.Unlock()
					return
				}
				left--
				mu.Unlock()
				rec, ack, err := src.Read(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				if err := sink.Write(ctx, transport.Record{Key: rec.Key, Value: rec.Value, Headers: rec.Headers}); err != nil {
					b.Error(err)
					_ = ack(ctx, err)
					return
				}
				if err := ack(ctx, nil); err != nil {
					b.Error(err)
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
}

func benchName(prefix string) string {
	return fmt.Sprintf("bench.%s.%d", prefix, time.Now().UnixNano())
}

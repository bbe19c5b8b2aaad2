package memory

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/transporttest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func harness(b *Broker) transporttest.Harness {
	return transporttest.Harness{
		NewTopic: func(t *testing.T, partitions int) string {
			name := transporttest.Name(t, "topic")
			if err := b.CreateTopic(name, partitions); err != nil {
				t.Fatal(err)
			}
			return name
		},
		NewSink: func(t *testing.T, topic string, o transporttest.SinkOptions) transport.Sink {
			return b.NewSink(SinkConfig{Topic: topic, MaxMessageBytes: o.MaxMessageBytes, CompressAbove: o.CompressAbove})
		},
		NewSource: func(t *testing.T, topic, group string, o transporttest.SourceOptions) transport.Source {
			s, err := b.NewSource(SourceConfig{Topic: topic, Group: group, MaxInFlightPerPartition: o.MaxInFlightPerPartition})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			return s
		},
		Crash: func(t *testing.T, topic, group string, _ transport.Source) { b.Crash(topic, group) },
		Wait:  5 * time.Second,
		Quiet: 50 * time.Millisecond,
	}
}

func TestConformance(t *testing.T) { transporttest.Run(t, harness(NewBroker())) }

func TestEndOfInput(t *testing.T) {
	b := NewBroker()
	if err := b.CreateTopic("jobs", 2); err != nil {
		t.Fatal(err)
	}
	sink := b.NewSink(SinkConfig{Topic: "jobs"})
	if err := sink.Write(context.Background(), transport.Record{Key: []byte("a"), Value: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	src, err := b.NewSource(SourceConfig{Topic: "jobs", Group: "g", EndOfInput: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(context.Background())
	_, ackFn, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := src.Read(context.Background()); !errors.Is(err, transport.ErrEndOfInput) {
		t.Fatalf("Read past the end = %v, want ErrEndOfInput", err)
	}
	if err := ackFn(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := b.Committed("jobs", "g"); got[0]+got[1] != 1 {
		t.Fatalf("Committed = %v, want one record committed", got)
	}
}

func TestOneOpenSourcePerGroup(t *testing.T) {
	b := NewBroker()
	if err := b.CreateTopic("jobs", 1); err != nil {
		t.Fatal(err)
	}
	first, err := b.NewSource(SourceConfig{Topic: "jobs", Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.NewSource(SourceConfig{Topic: "jobs", Group: "g"}); err == nil {
		t.Fatal("a second open Source of the group was allowed")
	}
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	second, err := b.NewSource(SourceConfig{Topic: "jobs", Group: "g"})
	if err != nil {
		t.Fatalf("Source after Close: %v", err)
	}
	_ = second.Close(context.Background())
}

func TestErrorsNameTheTopic(t *testing.T) {
	b := NewBroker()
	tests := []struct {
		name string
		err  error
	}{
		{"zero partitions", b.CreateTopic("x", 0)},
		{"unknown topic write", b.NewSink(SinkConfig{Topic: "missing"}).Write(context.Background(), transport.Record{})},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	if _, err := b.NewSource(SourceConfig{Topic: "missing", Group: "g"}); err == nil {
		t.Error("Source on a missing topic: no error")
	}
}

func BenchmarkReadAck(b *testing.B) {
	br := NewBroker()
	if err := br.CreateTopic("jobs", 4); err != nil {
		b.Fatal(err)
	}
	sink := br.NewSink(SinkConfig{Topic: "jobs"})
	recs := make([]transport.Record, b.N)
	for i := range recs {
		recs[i] = transport.Record{Key: []byte{byte(i)}, Value: []byte("v")}
	}
	if err := sink.Write(context.Background(), recs...); err != nil {
		b.Fatal(err)
	}
	src, err := br.NewSource(SourceConfig{Topic: "jobs", Group: "g"})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close(context.Background())
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_, ackFn, err := src.Read(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := ackFn(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

package embedded

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestConsumerGroupWorks seeds a topic, produces with a kafka-go Writer
// (acks=all) and consumes with a kafka-go Reader in a consumer group,
// committing, then checks a second member of the group resumes after the commit.
func TestConsumerGroupWorks(t *testing.T) {
	b, err := Start(Config{Addr: "127.0.0.1:0", Topics: []string{"hygiene.jobs"}, Partitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !strings.HasPrefix(b.Addr(), "127.0.0.1:") {
		t.Fatalf("Addr() = %q, want a loopback address", b.Addr())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	conn, err := kafkago.DialContext(ctx, "tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	parts, err := conn.ReadPartitions("hygiene.jobs")
	conn.Close()
	if err != nil || len(parts) != 3 {
		t.Fatalf("hygiene.jobs has %d partitions (%v), want 3", len(parts), err)
	}

	tr := &kafkago.Transport{}
	defer tr.CloseIdleConnections()
	w := &kafkago.Writer{Addr: kafkago.TCP(b.Addr()), Topic: "hygiene.jobs", RequiredAcks: kafkago.RequireAll,
		Balancer: &kafkago.Hash{}, BatchTimeout: time.Millisecond, Transport: tr}
	defer w.Close()
	if err := w.WriteMessages(ctx,
		kafkago.Message{Key: []byte("a"), Value: []byte("1")},
		kafkago.Message{Key: []byte("a"), Value: []byte("2")}); err != nil {
		t.Fatal(err)
	}

	read := func() kafkago.Message {
		r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: []string{b.Addr()}, GroupID: "g", Topic: "hygiene.jobs",
			StartOffset: kafkago.FirstOffset, MaxWait: 50 * time.Millisecond, HeartbeatInterval: 200 * time.Millisecond})
		defer r.Close()
		m, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := read(); string(m.Value) != "1" {
		t.Fatalf("first member read %q, want 1", m.Value)
	}
	if m := read(); string(m.Value) != "2" {
		t.Fatalf("second member read %q, want 2 (after the first member's commit)", m.Value)
	}
}

func TestStartErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "address in use", cfg: Config{Addr: busy.Addr().String()}, wantErr: "starting the broker on " + busy.Addr().String()},
		{name: "no port", cfg: Config{Addr: "127.0.0.1"}, wantErr: `listen address "127.0.0.1"`},
		{name: "port not a number", cfg: Config{Addr: "127.0.0.1:kafka"}, wantErr: "no numeric port"},
		{name: "negative partitions", cfg: Config{Addr: "127.0.0.1:0", Partitions: -1}, wantErr: "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Start(tt.cfg)
			if err == nil {
				b.Close()
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Start error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

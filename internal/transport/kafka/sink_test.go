package kafka

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/embedded"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// TestBrokerSizeRejectionIsRecordTooLarge configures the Sink with a larger
// limit than the broker's message.max.bytes: the broker's rejection must
// surface as transport.ErrRecordTooLarge, not as a transient error the runner
// would retry forever.
func TestBrokerSizeRejectionIsRecordTooLarge(t *testing.T) {
	b, err := embedded.Start(embedded.Config{Addr: "127.0.0.1:0", Topics: []string{"out"}, Partitions: 1, MaxMessageBytes: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sink, err := NewSink(SinkConfig{Config: Config{Brokers: []string{b.Addr()}}, Topic: "out", MaxMessageBytes: 100_000, CompressAbove: -1, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close(context.Background())
	big := make([]byte, 50_000)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = sink.Write(ctx, transport.Record{Key: []byte("k"), Value: big})
	if !errors.Is(err, transport.ErrRecordTooLarge) {
		t.Fatalf("Write over the broker's message.max.bytes = %v, want ErrRecordTooLarge", err)
	}
	if err := sink.Write(ctx, transport.Record{Key: []byte("k"), Value: big[:1000]}); err != nil {
		t.Fatalf("a small record after the rejection: %v", err)
	}
}

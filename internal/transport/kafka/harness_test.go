package kafka

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/embedded"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/transporttest"
)

// realBrokers returns the Apache Kafka bootstrap addresses from
// HYGIENE_KAFKA_BROKERS. Unset, the test is skipped locally and fails in CI
// (CI=true), where scripts/kafka.sh must have started a broker.
func realBrokers(t testing.TB) []string {
	t.Helper()
	v := strings.TrimSpace(os.Getenv("HYGIENE_KAFKA_BROKERS"))
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("HYGIENE_KAFKA_BROKERS is not set; CI must start Apache Kafka with scripts/kafka.sh start")
		}
		t.Skip("HYGIENE_KAFKA_BROKERS is not set; start a broker with: export HYGIENE_KAFKA_BROKERS=$(scripts/kafka.sh start)")
	}
	return strings.Split(v, ",")
}

// startEmbedded starts a kfake broker on a free loopback port for t.
func startEmbedded(t testing.TB) []string {
	t.Helper()
	b, err := embedded.Start(embedded.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return []string{b.Addr()}
}

// testSourceConfig has group timings short enough for tests.
func testSourceConfig(brokers []string, topic, group string) SourceConfig {
	return SourceConfig{
		Config:            Config{Brokers: brokers},
		Topic:             topic,
		GroupID:           group,
		CommitInterval:    100 * time.Millisecond,
		SessionTimeout:    6 * time.Second,
		HeartbeatInterval: 300 * time.Millisecond,
		RebalanceTimeout:  10 * time.Second,
		MaxWait:           100 * time.Millisecond,
	}
}

func harness(brokers []string) transporttest.Harness {
	return transporttest.Harness{
		NewTopic: func(t *testing.T, partitions int) string {
			name := transporttest.Name(t, "topic")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := EnsureTopics(ctx, brokers, []string{name}, partitions); err != nil {
				t.Fatal(err)
			}
			return name
		},
		NewSink: func(t *testing.T, topic string, o transporttest.SinkOptions) transport.Sink {
			s, err := NewSink(SinkConfig{Config: Config{Brokers: brokers}, Topic: topic, MaxMessageBytes: o.MaxMessageBytes, CompressAbove: o.CompressAbove})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			return s
		},
		NewSource: func(t *testing.T, topic, group string, o transporttest.SourceOptions) transport.Source {
			cfg := testSourceConfig(brokers, topic, group)
			cfg.MaxInFlightPerPartition = o.MaxInFlightPerPartition
			s, err := NewSource(cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			return s
		},
		Crash: func(t *testing.T, _, _ string, src transport.Source) {
			if err := src.(*Source).Abandon(); err != nil {
				t.Logf("Abandon: %v", err)
			}
		},
		Wait:  60 * time.Second,
		Quiet: 2 * time.Second,
	}
}

func TestConformanceEmbedded(t *testing.T) {
	transporttest.Run(t, harness(startEmbedded(t)))
}

func TestConformanceApacheKafka(t *testing.T) {
	transporttest.Run(t, harness(realBrokers(t)))
}

package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/embedded"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// broker is one Kafka-protocol broker (or cluster) the worker runs
// against; addr is its bootstrap list, comma-separated.
type broker struct {
	name string
	addr string
}

// brokers is the bootstrap list of b.
func (b broker) brokers() []string { return strings.Split(b.addr, ",") }

// forEachBroker runs fn on a fresh embedded broker, then on the real Kafka
// broker of HYGIENE_KAFKA_BROKERS.
func forEachBroker(t *testing.T, fn func(t *testing.T, b broker)) {
	t.Run("embedded", func(t *testing.T) { fn(t, startEmbedded(t)) })
	t.Run("kafka", func(t *testing.T) { fn(t, broker{name: "kafka", addr: realKafka(t)}) })
}

// startEmbedded starts the embedded broker in the test process on a free
// loopback port, so that killed workers do not take it down.
func startEmbedded(t *testing.T) broker {
	t.Helper()
	eb, err := embedded.Start(embedded.Config{Addr: "127.0.0.1:0", Partitions: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eb.Close)
	return broker{name: "embedded", addr: eb.Addr()}
}

// realKafka returns HYGIENE_KAFKA_BROKERS. Without it the test is skipped,
// unless CI=true: then it fails, because CI must test against real Kafka.
func realKafka(t *testing.T) string {
	t.Helper()
	if v := os.Getenv("HYGIENE_KAFKA_BROKERS"); v != "" {
		return strings.Split(v, ",")[0]
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("HYGIENE_KAFKA_BROKERS is not set; with CI=true the integration tests need a real Kafka broker (export HYGIENE_KAFKA_BROKERS=$(scripts/kafka.sh start))")
	}
	t.Skip("HYGIENE_KAFKA_BROKERS is not set; export HYGIENE_KAFKA_BROKERS=$(scripts/kafka.sh start) to run against real Apache Kafka")
	return ""
}

// topics are the three topics and the group of one test, unique per run so
// that tests sharing a real broker never see each other's records.
type topics struct {
	jobs, ready, dlq, group string
}

func newTopics(t *testing.T, b broker) topics {
	t.Helper()
	tp := topicNames(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := kafka.EnsureTopics(ctx, b.brokers(), []string{tp.jobs, tp.ready, tp.dlq}, 4); err != nil {
		t.Fatalf("creating the topics on %s: %v", b.name, err)
	}
	return tp
}

// topicNames returns unique topic and group names for t.
func topicNames(t *testing.T) topics {
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	base := "it-" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + "-" + hex.EncodeToString(suffix)
	return topics{jobs: base + ".jobs", ready: base + ".ready", dlq: base + ".dlq", group: base + ".workers"}
}

// workerEnv is the environment of a worker on b and tp, plus extra
// HYGIENE_* settings ("KEY=value").
func workerEnv(b broker, tp topics, extra ...string) []string {
	env := []string{
		"HYGIENE_KAFKA_BROKERS=" + b.addr,
		"HYGIENE_KAFKA_JOBS_TOPIC=" + tp.jobs,
		"HYGIENE_KAFKA_READY_TOPIC=" + tp.ready,
		"HYGIENE_KAFKA_DLQ_TOPIC=" + tp.dlq,
		"HYGIENE_KAFKA_GROUP_ID=" + tp.group,
		"HYGIENE_KAFKA_EMBEDDED_PARTITIONS=4",
		"HYGIENE_KAFKA_COMMIT_INTERVAL=100ms",
		// Crashed workers leave the group sooner than with the defaults.
		"HYGIENE_KAFKA_SESSION_TIMEOUT=6s",
		"HYGIENE_KAFKA_HEARTBEAT_INTERVAL=300ms",
		"HYGIENE_KAFKA_REBALANCE_TIMEOUT=10s",
		"HYGIENE_METRICS_LISTEN=127.0.0.1:0",
		"HYGIENE_PIPELINE_SHUTDOWN_TIMEOUT=15s",
		"HYGIENE_LOG_FORMAT=json",
	}
	return append(env, extra...)
}

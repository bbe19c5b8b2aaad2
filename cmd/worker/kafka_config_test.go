package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
)

// The connection settings an operator needs reach the transport from the
// YAML and from their HYGIENE_ variables (the environment wins).
func TestKafkaConnectionSettingsReachTheTransport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "worker.yaml")
	yaml := "kafka:\n  client_id: from-yaml\n  dial_timeout: 3s\n  tls:\n    enabled: true\n    server_name: kafka.internal\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := cfg.Kafka.Connection([]string{"b:9092"})
	if k.ClientID != "from-yaml" || k.DialTimeout != 3*time.Second || !k.TLS.Enabled || k.TLS.ServerName != "kafka.internal" {
		t.Fatalf("from the YAML: %+v", k)
	}
	cfg, err = config.Load(path, []string{"HYGIENE_KAFKA_CLIENT_ID=from-env", "HYGIENE_KAFKA_DIAL_TIMEOUT=4s", "HYGIENE_KAFKA_TLS_SERVER_NAME=other.internal"})
	if err != nil {
		t.Fatal(err)
	}
	k = cfg.Kafka.Connection([]string{"b:9092"})
	if k.ClientID != "from-env" || k.DialTimeout != 4*time.Second || k.TLS.ServerName != "other.internal" {
		t.Fatalf("from the environment: %+v", k)
	}
}

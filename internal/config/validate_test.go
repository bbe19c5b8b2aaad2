package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

func TestValidateNamesEachBadValue(t *testing.T) {
	half := 0.5
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"image dimension", func(c *Config) { c.Images.MaxDimensionPx = 0 }, "images.max_dimension_px: must be at least 1, got 0"},
		{"contract mode", func(c *Config) { c.Contract.Mode = "warn" }, `contract.mode: must be one of "reject", "report", got "warn"`},
		{"negative image cap", func(c *Config) { c.Images.MaxImagesPerRequest = -1 }, "images.max_images_per_request: must be at least 0, got -1"},
		{"bad broker", func(c *Config) { c.Kafka.Brokers = []string{"ok:9092", "nohost"} }, `kafka.brokers[1]: must be host:port, got "nohost"`},
		{"broker port 0", func(c *Config) { c.Kafka.Brokers = []string{"a:0"} }, `kafka.brokers[0]: port must be 1-65535, got "a:0"`},
		{"embedded listen", func(c *Config) { c.Kafka.EmbeddedListen = "localhost" }, `kafka.embedded_listen: must be host:port`},
		{"same topics", func(c *Config) { c.Kafka.DLQTopic = c.Kafka.ReadyTopic }, "must be three different topics"},
		{"empty group", func(c *Config) { c.Kafka.GroupID = "" }, "kafka.group_id: must not be empty"},
		{"commit interval", func(c *Config) { c.Kafka.CommitInterval = 0 }, "kafka.commit_interval: must be a positive duration, got 0s"},
		{"heartbeat not shorter than the session", func(c *Config) { c.Kafka.HeartbeatInterval = c.Kafka.SessionTimeout }, "kafka.heartbeat_interval: must be shorter than kafka.session_timeout (10s), got 10s"},
		{"cert without key", func(c *Config) { c.Kafka.TLS = kafka.TLSConfig{Enabled: true, CertFile: "c.pem"} }, "kafka.tls.cert_file, kafka.tls.key_file: must be set together"},
		{"tls files while disabled", func(c *Config) { c.Kafka.TLS.CAFile = "ca.pem" }, "kafka.tls.enabled: must be true"},
		{"sasl mechanism", func(c *Config) { c.Kafka.SASL = kafka.SASLConfig{Mechanism: "gssapi", Username: "u"} }, `kafka.sasl.mechanism: must be one of "", "plain", "scram-sha-256", "scram-sha-512", got "gssapi"`},
		{"sasl without user", func(c *Config) { c.Kafka.SASL.Mechanism = kafka.SASLPlain }, "kafka.sasl.username: must not be empty"},
		{"sasl password without mechanism", func(c *Config) { c.Kafka.SASL.Password = "p" }, "kafka.sasl.mechanism: must be set"},
		{"negative workers", func(c *Config) { c.Pipeline.Workers = -1 }, "pipeline.workers: must be at least 0, got -1"},
		{"negative fanout workers", func(c *Config) { c.Pipeline.FanoutWorkers = -1 }, "pipeline.fanout_workers: must be at least 0, got -1"},
		{"negative fanout threshold", func(c *Config) { c.Pipeline.FanoutMinMessages = -5 }, "pipeline.fanout_min_messages: must be at least 0, got -5"},
		{"negative fanout byte threshold", func(c *Config) { c.Pipeline.FanoutMinBytes = -1 }, "pipeline.fanout_min_bytes: must be at least 0, got -1"},
		{"share zero", func(c *Config) { c.Pipeline.TenantMaxShare = 0 }, "pipeline.tenant_max_share: must be above 0 and at most 1, got 0"},
		{"negative gc floor", func(c *Config) { c.Memory.GCFloorBytes = -1 }, "memory.gc_floor_bytes: must be at least 0, got -1"},
		{"negative sanitize ratio", func(c *Config) { c.Memory.SanitizeInputRatio = -1 }, "memory.sanitize_input_ratio: must be between 0 and 1000, got -1"},
		{"share above one", func(c *Config) { c.Pipeline.TenantMaxShare = 1.5 }, "got 1.5"},
		{"backoff order", func(c *Config) { c.Pipeline.RetryMaxBackoff = time.Millisecond }, "pipeline.retry_max_backoff: must be at least pipeline.retry_initial_backoff (100ms), got 1ms"},
		{"shutdown", func(c *Config) { c.Pipeline.ShutdownTimeout = -time.Second }, "pipeline.shutdown_timeout: must be a positive duration, got -1s"},
		{"max depth", func(c *Config) { c.Limits.MaxDepth = 0 }, "limits.max_depth: must be at least 1, got 0"},
		{"image workers", func(c *Config) { c.Images.Workers = -2 }, "images.workers: must be at least 0, got -2"},
		{"pruning mode", func(c *Config) { c.Pruning.Mode = "on" }, `pruning.mode: must be one of "off", "cache-ttl", got "on"`},
		{"ratio", func(c *Config) { c.Pruning.SoftTrimRatio = 1.2 }, "pruning.soft_trim_ratio: must be between 0 and 1, got 1.2"},
		{"placeholder", func(c *Config) { c.Pruning.HardClear.Placeholder = " " }, "pruning.hard_clear.placeholder: must not be empty"},
		{"deny pattern", func(c *Config) { c.Pruning.Tools.Deny = []string{"read", ""} }, "pruning.tools.deny[1]: must not be empty"},
		{"metrics listen", func(c *Config) { c.Metrics.Listen = ":http" }, `metrics.listen: port must be 0-65535, got ":http"`},
		{"log level", func(c *Config) { c.Log.Level = "verbose" }, `log.level: must be one of "debug", "info", "warn", "error", got "verbose"`},
		{"log format", func(c *Config) { c.Log.Format = "xml" }, `log.format: must be one of "json", "text", got "xml"`},
		{"tenant name", func(c *Config) { c.Tenants["acme corp"] = TenantOverride{PoolShare: &half} }, `tenants.acme corp: tenant name must match`},
		{"tenant image override", func(c *Config) {
			c.Tenants["acme"] = TenantOverride{Images: settings.OverlayOf[settings.Images]("max_frames: 0")}
		}, "tenants.acme.images.max_frames: must be at least 1, got 0"},
		{"tenant pruning override", func(c *Config) {
			c.Tenants["acme"] = TenantOverride{Pruning: settings.OverlayOf[settings.Pruning]("hard_clear: {placeholder: ' '}")}
		}, "tenants.acme.pruning.hard_clear.placeholder: must not be empty"},
		{"tenant pool share", func(c *Config) { z := 0.0; c.Tenants["acme"] = TenantOverride{PoolShare: &z} }, "tenants.acme.pool_share: must be above 0 and at most 1, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mutate(&c)
			err := c.Validate()
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate() = %v, want a *ValidationError", err)
			}
			if len(ve.Problems) != 1 || !strings.Contains(ve.Problems[0], tt.want) {
				t.Fatalf("problems %q, want exactly one containing %q", ve.Problems, tt.want)
			}
		})
	}
}

func TestValidateReportsEveryProblemOnOneLine(t *testing.T) {
	c := Default()
	c.Images.MaxDimensionPx = 0
	c.Log.Level = "loud"
	c.Limits.MaxMessages = -1
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate() = nil")
	}
	msg := err.Error()
	for _, want := range []string{"images.max_dimension_px", "log.level", "limits.max_messages"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not name %s", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("%q spans lines", msg)
	}
}

func TestValidateAcceptsGoodSettings(t *testing.T) {
	c := Default()
	c.Kafka.Brokers = []string{"kafka-0.kafka:9093", "[::1]:9092"}
	c.Kafka.TLS = kafka.TLSConfig{Enabled: true, CAFile: "/tls/ca.crt", CertFile: "/tls/tls.crt", KeyFile: "/tls/tls.key"}
	c.Kafka.SASL = kafka.SASLConfig{Mechanism: kafka.SASLScramSHA512, Username: "u", Password: "p"}
	c.Metrics.Listen = "0.0.0.0:9464"
	c.Kafka.EmbeddedListen = "nohost" // unused when brokers are set
	c.Pruning.Mode = settings.PruningCacheTTL
	one := 1.0
	c.Tenants["acme.eu-1"] = TenantOverride{PoolShare: &one}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

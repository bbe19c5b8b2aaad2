package config

import (
	"time"

	"github.com/hygiene-dev/hygiene/internal/apikeys"
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// Default returns every setting at its default; configs/worker.yaml writes
// the same values out (a test keeps them equal).
// The connection's defaults are package kafka's (kafka.DefaultConfig).
func Default() Config {
	conn := kafka.DefaultConfig()
	return Config{
		Kafka: KafkaConfig{
			Brokers:                 conn.Brokers,
			EmbeddedListen:          "127.0.0.1:9092",
			EmbeddedPartitions:      4,
			ClientID:                conn.ClientID,
			DialTimeout:             conn.DialTimeout,
			GroupID:                 "hygiene-worker",
			JobsTopic:               "hygiene.jobs",
			ReadyTopic:              "hygiene.ready",
			DLQTopic:                "hygiene.dlq",
			CommitInterval:          time.Second,
			SessionTimeout:          10 * time.Second,
			HeartbeatInterval:       time.Second,
			RebalanceTimeout:        30 * time.Second,
			MaxInflightPerPartition: 1000,
			MaxMessageBytes:         10 << 20,
			CompressAboveBytes:      64 << 10,
			CompressionLevel:        "better",
			WriterBatchSize:         100,
			WriterBatchTimeout:      10 * time.Millisecond,
			TLS:                     conn.TLS,
			SASL:                    conn.SASL,
		},
		Pipeline: PipelineConfig{
			MaxInflightBytes:    256 << 20,
			MaxInflightJobs:     1024,
			TenantMaxShare:      0.5,
			ShutdownTimeout:     25 * time.Second,
			RetryInitialBackoff: 100 * time.Millisecond,
			RetryMaxBackoff:     10 * time.Second,
			FanoutMinMessages:   20_000,
			FanoutMinBytes:      8 << 20,
		},
		Limits: LimitsConfig{
			MaxJobBytes:        64 << 20,
			MaxCompressedBytes: 16 << 20,
			MaxMessages:        1_000_000,
			MaxDepth:           256,
		},
		Contract: ContractConfig{Mode: settings.ContractReject},
		Images: ImagesConfig{
			Images: settings.Images{
				MaxDimensionPx:           1200,
				MaxBytes:                 5 << 20,
				MaxInputPixels:           25_000_000,
				MaxBase64Bytes:           64 << 20,
				MaxFrames:                64,
				ManyImagesThreshold:      0, // 0: the target's documented caps (internal/contract)
				ManyImagesMaxDimensionPx: 0,
				MaxImagesPerRequest:      0,
			},
			Config: images.DefaultConfig(),
		},
		Pruning: settings.Pruning{
			Mode:                 settings.PruningOff,
			TTL:                  settings.Duration(5 * time.Minute),
			KeepLastAssistants:   3,
			SoftTrimRatio:        0.3,
			HardClearRatio:       0.5,
			MinPrunableToolChars: 50_000,
			SoftTrim:             settings.SoftTrim{MaxChars: 4000, HeadChars: 1500, TailChars: 1500},
			HardClear:            settings.HardClear{Enabled: true, Placeholder: "[Old tool result content cleared]"},
			Tools:                settings.Tools{Allow: []string{}, Deny: []string{}},
		},
		Context: settings.Context{Fit: settings.FitTrim, WindowTokens: 0, MaxOutputTokens: 0}, // 0: the model table
		Metrics: MetricsConfig{Listen: "127.0.0.1:9464"},
		Memory:  MemoryConfig{LimitRatio: 0.9, SanitizeInputRatio: 2.5, GCFloorBytes: 64 << 20},
		Log:     LogConfig{Level: "info", Format: "json"},
		Tenants: map[string]TenantOverride{},

		HTTP: HTTPConfig{Listen: "", MaxConcurrent: 64, RetryAfter: time.Second, ReadTimeout: 30 * time.Second,
			Auth: apikeys.Config{Keys: []apikeys.Key{}}},
		Tracing:    TracingConfig{Enabled: false, Endpoint: "127.0.0.1:4318", Insecure: true, ServiceName: "hygiene-worker", SampleRatio: 1},
		RateLimits: RateLimitsConfig{MaxWaitingJobs: 256},
	}
}

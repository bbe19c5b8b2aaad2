package config

import (
	"time"

	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// Config is the whole worker configuration, one field per section of
// configs/worker.yaml. The per-job sections, images, pruning and context, are
// declared in package settings (with the tags a job's options use too), the
// image pool in package images; this package loads, overrides and
// validates them like every section.
type Config struct {
	Kafka    KafkaConfig               `yaml:"kafka"`
	Pipeline PipelineConfig            `yaml:"pipeline"`
	Limits   LimitsConfig              `yaml:"limits"`
	Hygiene  HygieneConfig             `yaml:"hygiene"`
	Contract ContractConfig            `yaml:"contract"`
	Images   ImagesConfig              `yaml:"images"`
	Pruning  settings.Pruning          `yaml:"pruning"`
	Context  settings.Context          `yaml:"context"`
	Metrics  MetricsConfig             `yaml:"metrics"`
	Memory   MemoryConfig              `yaml:"memory"`
	Log      LogConfig                 `yaml:"log"`
	Tenants  map[string]TenantOverride `yaml:"tenants"`

	// HTTP, Tracing and RateLimits are declared in operate.go.
	HTTP       HTTPConfig       `yaml:"http"`
	Tracing    TracingConfig    `yaml:"tracing"`
	RateLimits RateLimitsConfig `yaml:"rate_limits"`
}

// ImagesConfig is the images: section: the per-job image settings
// (settings.Images, which a tenant and a job overlay) and the worker's one
// image pool and cache (images.Config: workers, max_decoded_bytes,
// cache_bytes, which only the configuration sets), side by side under one
// key. Both are embedded inline, so a key is read, printed, named by its
// HYGIENE_IMAGES_* variable and refused as a tenant's exactly as if the
// section declared it.
type ImagesConfig struct {
	settings.Images `yaml:",inline"`
	images.Config   `yaml:",inline"`
}

// KafkaConfig is the broker connection, topics and producer/consumer bounds.
// The connection's types and defaults (TLS, SASL, client id, dial timeout)
// are package kafka's; Connection hands them to it.
type KafkaConfig struct {
	// Brokers are the bootstrap addresses; empty starts the embedded broker.
	Brokers []string `yaml:"brokers"`
	// EmbeddedListen is the address of the embedded in-memory broker.
	EmbeddedListen string `yaml:"embedded_listen"`
	// EmbeddedPartitions is the partition count of the embedded broker's topics.
	EmbeddedPartitions int `yaml:"embedded_partitions"`
	// ClientID names this worker to the brokers (their logs and quotas).
	ClientID string `yaml:"client_id"`
	// DialTimeout bounds one connection attempt to a broker.
	DialTimeout time.Duration `yaml:"dial_timeout"`
	// GroupID is the consumer group.
	GroupID string `yaml:"group_id"`
	// JobsTopic is the topic jobs are read from.
	JobsTopic string `yaml:"jobs_topic"`
	// ReadyTopic receives sanitized payloads.
	ReadyTopic string `yaml:"ready_topic"`
	// DLQTopic receives dead letters.
	DLQTopic string `yaml:"dlq_topic"`
	// CommitInterval is how often acknowledged offsets are committed.
	CommitInterval time.Duration `yaml:"commit_interval"`
	// SessionTimeout is how long the group waits for a silent member (a
	// crashed worker) before its partitions move.
	SessionTimeout time.Duration `yaml:"session_timeout"`
	// HeartbeatInterval is how often a member tells the group it is alive.
	HeartbeatInterval time.Duration `yaml:"heartbeat_interval"`
	// RebalanceTimeout is how long a rebalance waits for members to rejoin.
	RebalanceTimeout time.Duration `yaml:"rebalance_timeout"`
	// MaxInflightPerPartition caps read-but-unacknowledged offsets per partition.
	MaxInflightPerPartition int `yaml:"max_inflight_per_partition"`
	// MaxMessageBytes is the largest output record after compression.
	MaxMessageBytes int64 `yaml:"max_message_bytes"`
	// CompressAboveBytes: output values larger than this are zstd-compressed.
	CompressAboveBytes int64 `yaml:"compress_above_bytes"`
	// CompressionLevel is the zstd level of ready payloads: fastest,
	// default, better or best (better is the first that shrinks base64).
	CompressionLevel string `yaml:"compression_level"`
	// WriterBatchSize is the producer's batch size in records.
	WriterBatchSize int `yaml:"writer_batch_size"`
	// WriterBatchTimeout is the longest a record waits for its batch to fill.
	WriterBatchTimeout time.Duration `yaml:"writer_batch_timeout"`
	// TLS configures transport encryption to the brokers.
	TLS kafka.TLSConfig `yaml:"tls"`
	// SASL configures broker authentication; Print redacts its password.
	SASL kafka.SASLConfig `yaml:"sasl"`
}

// Connection is how the transport reaches brokers with this section's
// client id, dial timeout, TLS and SASL: the configured Brokers, or the
// embedded broker's address when none are configured.
func (k KafkaConfig) Connection(brokers []string) kafka.Config {
	return kafka.Config{Brokers: brokers, ClientID: k.ClientID, DialTimeout: k.DialTimeout, TLS: k.TLS, SASL: k.SASL}
}

// PipelineConfig bounds the job pool and sets shutdown and retry timing.
type PipelineConfig struct {
	// Workers is the job pool size; 0 means 2 x cores (see PoolSize).
	Workers int `yaml:"workers"`
	// MaxInflightBytes caps the bytes of jobs read but not yet acknowledged.
	MaxInflightBytes int64 `yaml:"max_inflight_bytes"`
	// MaxInflightJobs caps the jobs read but not yet acknowledged.
	MaxInflightJobs int `yaml:"max_inflight_jobs"`
	// TenantMaxShare is the largest share of the pool one tenant may hold.
	TenantMaxShare float64 `yaml:"tenant_max_share"`
	// ShutdownTimeout is how long a draining worker waits for in-flight jobs.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	// RetryInitialBackoff is the first wait after a transient failure.
	RetryInitialBackoff time.Duration `yaml:"retry_initial_backoff"`
	// RetryMaxBackoff caps the exponential backoff.
	RetryMaxBackoff time.Duration `yaml:"retry_max_backoff"`
	// FanoutWorkers is the helper goroutines, shared by every job, that run
	// the chunks of a large history in parallel; 0 means cores - 1 (see
	// FanoutPoolSize). A job never waits for one (package fanout).
	FanoutWorkers int `yaml:"fanout_workers"`
	// FanoutMinMessages is the history length from which a job's pairing
	// repair is split into chunks across the helpers; 0 never splits.
	FanoutMinMessages int `yaml:"fanout_min_messages"`
	// FanoutMinBytes is the job size (after decompression) from which its
	// message array is parsed in chunks across the helpers; 0 never
	// splits. The ready payload's messages are encoded in chunks from
	// FanoutMinMessages messages.
	FanoutMinBytes int `yaml:"fanout_min_bytes"`
}

// LimitsConfig bounds one input record.
type LimitsConfig struct {
	// MaxJobBytes caps a record after decompression.
	MaxJobBytes int64 `yaml:"max_job_bytes"`
	// MaxCompressedBytes caps a record as read.
	MaxCompressedBytes int64 `yaml:"max_compressed_bytes"`
	// MaxMessages caps the messages in one job.
	MaxMessages int `yaml:"max_messages"`
	// MaxDepth caps JSON nesting depth.
	MaxDepth int `yaml:"max_depth"`
}

// HygieneConfig tunes the hygiene rules.
type HygieneConfig struct {
	// MissingToolResultText replaces the built-in unknown-outcome sentence
	// of synthetic tool results when not empty.
	MissingToolResultText string `yaml:"missing_tool_result_text"`
}

// ContractConfig sets what the final check against the target's contract
// (package contract) does with a sanitized transcript the target would
// refuse: reject makes it a dead letter "unsendable"; report writes the
// payload and lists the violations under report.contract.
type ContractConfig struct {
	Mode settings.ContractMode `yaml:"mode"`
}

// MetricsConfig sets the HTTP listener for /metrics, /healthz and /readyz.
type MetricsConfig struct {
	Listen string `yaml:"listen"`
	// Pprof also serves Go's profiles (net/http/pprof) under /debug/pprof/
	// on the same listener. Off by default: a profile shows the code and
	// costs CPU while it runs, so switch it on only where the listener is
	// private.
	Pprof bool `yaml:"pprof"`
}

// LogConfig sets the log level (debug|info|warn|error) and format (json|text).
type LogConfig struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// MemoryConfig sets the worker's memory budget (see internal/memlimit).
type MemoryConfig struct {
	// LimitBytes is the process's memory budget; 0 derives it as
	// LimitRatio x the container limit (none without one).
	LimitBytes int64 `yaml:"limit_bytes"`
	// ContainerLimitBytes is the container's memory limit as the deployment
	// states it (the Helm chart passes resources.limits.memory); 0 reads
	// the cgroup.
	ContainerLimitBytes int64 `yaml:"container_limit_bytes"`
	// LimitRatio is the share of the container limit used as the budget.
	LimitRatio float64 `yaml:"limit_ratio"`
	// SanitizeInputRatio sizes `worker sanitize`'s Go memory limit from its
	// one job: what the runtime holds once the input is read (a mapped job
	// file is not the runtime's: cmd/worker's mapInput), plus this
	// many times the input's size, at least 64 MiB (memlimit.ForJob); 0
	// sets none. A GOMEMLIMIT in the environment is used instead. Under
	// the limit it sets, the collector runs only as the heap nears it
	// (GOGC's pacing is off unless GOGC is set: cmd/worker's
	// setJobMemory). The
	// default, 2.5, is the lowest that costs a damaged 100k-message
	// history at most ~5 % more CPU than no limit (2 holds 0.2x of the
	// input less at up to +30 %: bench/README.md, session 6's memory).
	SanitizeInputRatio float64 `yaml:"sanitize_input_ratio"`
	// GCFloorBytes is `worker run`'s heap floor (memlimit.HeapFloor): the
	// collector's heap goal stays at least this many bytes while the live
	// heap is small, and is GOGC's (twice the live heap) once it is large;
	// 0 turns it off. It must fit under the Go memory limit. A worker of
	// small jobs (a 3-4 MB live heap) otherwise collects every ~60 jobs.
	GCFloorBytes int64 `yaml:"gc_floor_bytes"`
}

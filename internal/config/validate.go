package config

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// ValidationError lists every bad value of a configuration, each naming its
// setting, e.g. "images.max_dimension_px: must be at least 1, got 0".
type ValidationError struct {
	Problems []string
}

// Error joins the problems on one line.
func (e *ValidationError) Error() string {
	return "invalid config: " + strings.Join(e.Problems, "; ")
}

// Validate checks every setting and returns a *ValidationError naming each
// bad value, or nil.
func (c Config) Validate() error {
	var p problems
	c.validateKafka(&p)
	c.validatePipeline(&p)
	l := c.Limits
	p.atLeast("limits.max_job_bytes", l.MaxJobBytes, 1)
	p.atLeast("limits.max_compressed_bytes", l.MaxCompressedBytes, 1)
	p.atLeast("limits.max_messages", int64(l.MaxMessages), 1)
	p.atLeast("limits.max_depth", int64(l.MaxDepth), 1)
	p.oneOf("contract.mode", string(c.Contract.Mode), string(settings.ContractReject), string(settings.ContractReport))
	p = append(p, settings.Validate(c.Images.Images, settings.FromConfig[settings.Images]("images"))...)
	p.atLeast("images.workers", int64(c.Images.Workers), 0)
	p.atLeast("images.max_decoded_bytes", c.Images.MaxDecodedBytes, 1)
	p.atLeast("images.cache_bytes", c.Images.CacheBytes, 0)
	p = append(p, settings.Validate(c.Pruning, settings.FromConfig[settings.Pruning]("pruning"))...)
	p = append(p, settings.Validate(c.Context, settings.FromConfig[settings.Context]("context"))...)
	p.hostPort("metrics.listen", c.Metrics.Listen, 0)
	p.atLeast("memory.limit_bytes", c.Memory.LimitBytes, 0)
	p.atLeast("memory.container_limit_bytes", c.Memory.ContainerLimitBytes, 0)
	p.share("memory.limit_ratio", c.Memory.LimitRatio)
	p.atLeast("memory.gc_floor_bytes", c.Memory.GCFloorBytes, 0)
	if x := c.Memory.SanitizeInputRatio; !(x >= 0 && x <= 1000) {
		p.add("memory.sanitize_input_ratio: must be between 0 and 1000, got %s", strconv.FormatFloat(x, 'g', -1, 64))
	}
	p.oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error")
	p.oneOf("log.format", c.Log.Format, "json", "text")
	c.validateOperate(&p)
	names := make([]string, 0, len(c.Tenants))
	for name := range c.Tenants {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		c.validateTenant(&p, name)
	}
	if len(p) == 0 {
		return nil
	}
	return &ValidationError{Problems: p}
}

func (c Config) validateKafka(p *problems) {
	k := c.Kafka
	for i, b := range k.Brokers {
		p.hostPort(fmt.Sprintf("kafka.brokers[%d]", i), b, 1)
	}
	if len(k.Brokers) == 0 {
		p.hostPort("kafka.embedded_listen", k.EmbeddedListen, 0)
	}
	p.atLeast("kafka.embedded_partitions", int64(k.EmbeddedPartitions), 1)
	p.notBlank("kafka.client_id", k.ClientID)
	p.positive("kafka.dial_timeout", k.DialTimeout)
	p.notBlank("kafka.group_id", k.GroupID)
	p.notBlank("kafka.jobs_topic", k.JobsTopic)
	p.notBlank("kafka.ready_topic", k.ReadyTopic)
	p.notBlank("kafka.dlq_topic", k.DLQTopic)
	if k.JobsTopic == k.ReadyTopic || k.JobsTopic == k.DLQTopic || k.ReadyTopic == k.DLQTopic {
		p.add("kafka.jobs_topic, kafka.ready_topic, kafka.dlq_topic: must be three different topics, got %q, %q, %q",
			k.JobsTopic, k.ReadyTopic, k.DLQTopic)
	}
	p.positive("kafka.commit_interval", k.CommitInterval)
	p.positive("kafka.session_timeout", k.SessionTimeout)
	p.positive("kafka.heartbeat_interval", k.HeartbeatInterval)
	p.positive("kafka.rebalance_timeout", k.RebalanceTimeout)
	if k.HeartbeatInterval >= k.SessionTimeout {
		p.add("kafka.heartbeat_interval: must be shorter than kafka.session_timeout (%s), got %s", k.SessionTimeout, k.HeartbeatInterval)
	}
	p.atLeast("kafka.max_inflight_per_partition", int64(k.MaxInflightPerPartition), 1)
	p.atLeast("kafka.max_message_bytes", k.MaxMessageBytes, 1)
	p.atLeast("kafka.compress_above_bytes", k.CompressAboveBytes, 0)
	p.oneOf("kafka.compression_level", k.CompressionLevel, "fastest", "default", "better", "best")
	p.atLeast("kafka.writer_batch_size", int64(k.WriterBatchSize), 1)
	p.positive("kafka.writer_batch_timeout", k.WriterBatchTimeout)
	if (k.TLS.CertFile == "") != (k.TLS.KeyFile == "") {
		p.add("kafka.tls.cert_file, kafka.tls.key_file: must be set together (a client certificate needs its key)")
	}
	if !k.TLS.Enabled && (k.TLS.CAFile != "" || k.TLS.CertFile != "" || k.TLS.InsecureSkipVerify) {
		p.add("kafka.tls.enabled: must be true when other kafka.tls settings are set")
	}
	p.oneOf("kafka.sasl.mechanism", k.SASL.Mechanism, "", kafka.SASLPlain, kafka.SASLScramSHA256, kafka.SASLScramSHA512)
	if k.SASL.Mechanism != "" {
		p.notBlank("kafka.sasl.username", k.SASL.Username)
	} else if k.SASL.Username != "" || k.SASL.Password != "" {
		p.add("kafka.sasl.mechanism: must be set when kafka.sasl.username or kafka.sasl.password is set")
	}
}

func (c Config) validatePipeline(p *problems) {
	q := c.Pipeline
	p.atLeast("pipeline.workers", int64(q.Workers), 0)
	p.atLeast("pipeline.fanout_workers", int64(q.FanoutWorkers), 0)
	p.atLeast("pipeline.fanout_min_messages", int64(q.FanoutMinMessages), 0)
	p.atLeast("pipeline.fanout_min_bytes", int64(q.FanoutMinBytes), 0)
	p.atLeast("pipeline.max_inflight_bytes", q.MaxInflightBytes, 1)
	p.atLeast("pipeline.max_inflight_jobs", int64(q.MaxInflightJobs), 1)
	p.share("pipeline.tenant_max_share", q.TenantMaxShare)
	p.positive("pipeline.shutdown_timeout", q.ShutdownTimeout)
	p.positive("pipeline.retry_initial_backoff", q.RetryInitialBackoff)
	if q.RetryMaxBackoff < q.RetryInitialBackoff {
		p.add("pipeline.retry_max_backoff: must be at least pipeline.retry_initial_backoff (%s), got %s",
			q.RetryInitialBackoff, q.RetryMaxBackoff)
	}
}

// validateTenant checks a tenant's name and the values it resolves to. A
// bad inherited value is already reported under its global name, so only
// the overridden ones can add problems here. The image, pruning and
// context sections are checked by the same rules as the global ones and a job's
// (settings.Validate).
func (c Config) validateTenant(p *problems, name string) {
	at := "tenants." + name
	if !transcript.ValidTenant(name) {
		p.add("%s: tenant name must match %s, got %q", at, transcript.TenantNameForm, name)
	}
	o := c.Tenants[name]
	var none struct {
		images  settings.Overlay[settings.Images]
		pruning settings.Overlay[settings.Pruning]
		context settings.Overlay[settings.Context]
	}
	*p = append(*p, settings.Validate(settings.Resolve(c.Images.Images, o.Images, none.images), settings.FromTenant("images", name, o.Images))...)
	*p = append(*p, settings.Validate(settings.Resolve(c.Pruning, o.Pruning, none.pruning), settings.FromTenant("pruning", name, o.Pruning))...)
	*p = append(*p, settings.Validate(settings.Resolve(c.Context, o.Context, none.context), settings.FromTenant("context", name, o.Context))...)
	if o.PoolShare != nil {
		p.share(at+".pool_share", *o.PoolShare)
	}
	if o.RateLimits.Set() {
		validateRates(p, at+".rate_limits", c.RateLimitsFor(name))
	}
}

// problems collects one sentence per bad value.
type problems []string

func (p *problems) add(format string, args ...any) {
	*p = append(*p, fmt.Sprintf(format, args...))
}

// addAll adds problems already worded.
func (p *problems) addAll(msgs []string) {
	for _, m := range msgs {
		p.add("%s", m)
	}
}

func (p *problems) atLeast(path string, v, min int64) {
	if v < min {
		p.add("%s: must be at least %d, got %d", path, min, v)
	}
}

func (p *problems) positive(path string, d time.Duration) {
	if d <= 0 {
		p.add("%s: must be a positive duration, got %s", path, d)
	}
}

func (p *problems) ratio(path string, x float64) {
	if !(x >= 0 && x <= 1) {
		p.add("%s: must be between 0 and 1, got %s", path, strconv.FormatFloat(x, 'g', -1, 64))
	}
}

func (p *problems) share(path string, x float64) {
	if !(x > 0 && x <= 1) {
		p.add("%s: must be above 0 and at most 1, got %s", path, strconv.FormatFloat(x, 'g', -1, 64))
	}
}

func (p *problems) notBlank(path, v string) {
	if strings.TrimSpace(v) == "" {
		p.add("%s: must not be empty", path)
	}
}

func (p *problems) oneOf(path, v string, allowed ...string) {
	if slices.Contains(allowed, v) {
		return
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = strconv.Quote(a)
	}
	p.add("%s: must be one of %s, got %q", path, strings.Join(quoted, ", "), v)
}

// hostPort checks a host:port address; minPort is 0 for a listen address
// (any free port) and 1 for an address to dial.
func (p *problems) hostPort(path, v string, minPort int) {
	_, port, err := net.SplitHostPort(v)
	if err != nil {
		p.add("%s: must be host:port, got %q", path, v)
		return
	}
	if n, err := strconv.Atoi(port); err != nil || n < minPort || n > 65535 {
		p.add("%s: port must be %d-65535, got %q", path, minPort, v)
	}
}

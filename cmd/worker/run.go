package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/embedded"
	"github.com/hygiene-dev/hygiene/internal/health"
	"github.com/hygiene-dev/hygiene/internal/images/lazyvips"
	"github.com/hygiene-dev/hygiene/internal/memlimit"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

const runUsage = `usage: worker run [--config FILE] [--produce DIR] [--noop]

Consumes jobs from Kafka and writes ready payloads and dead letters until
SIGTERM or SIGINT, then drains within pipeline.shutdown_timeout. With no
kafka.brokers configured it starts an embedded in-memory broker on
kafka.embedded_listen that any Kafka client can produce to.

flags:
`

// runOptions are the flags of `worker run` besides the configuration.
type runOptions struct {
	// produceDir, when set, is the demo: produce DIR/*.json, print one line
	// per outcome, exit when all are done.
	produceDir string
	// noop replaces the pipeline with pipeline.NoOp (a throughput ceiling).
	noop   bool
	stdout io.Writer
}

// runCommand runs `worker run`; args are the words after "run".
func runCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("worker run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runUsage); fs.PrintDefaults() }
	cfgPath := fs.String("config", "", "YAML configuration `file` (default: built-in defaults, then HYGIENE_* variables)")
	produce := fs.String("produce", "", "demo: produce every `DIR`/*.json job, print one line per ready or dead-letter record, exit when all are done")
	noop := fs.Bool("noop", false, "pass every record through unchanged instead of running the pipeline (measures the runner and broker ceiling)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "worker run: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	cfg, err := config.Load(*cfgPath, os.Environ())
	if err != nil {
		fmt.Fprintf(stderr, "worker run: %s\n", firstLine(err.Error()))
		return exitUsage
	}
	// A long-running worker loads libvips now (lazyvips: the one-job
	// commands load it at their first image), so a host without it stops
	// the worker here, with the reason, not at the first image of a job.
	if err := lazyvips.Load(); err != nil {
		fmt.Fprintf(stderr, "worker run: %s\n", firstLine(err.Error()))
		return exitRuntime
	}
	opts := runOptions{produceDir: *produce, noop: *noop, stdout: stdout}
	var demo *demo
	if opts.produceDir != "" {
		if demo, err = loadDemo(opts.produceDir); err != nil {
			fmt.Fprintf(stderr, "worker run: %s\n", firstLine(err.Error()))
			return exitUsage
		}
	}
	log := newLogger(cfg.Log, stderr)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // the first signal drains; a second one ends the process at once
	}()
	if err := runWorker(ctx, cfg, opts, demo, log); err != nil {
		log.Error("the worker stopped with an error", "err", err)
		fmt.Fprintf(stderr, "worker run: %s\n", firstLine(err.Error()))
		return exitRuntime
	}
	return exitOK
}

// newLogger returns the structured logger of cfg on w.
func newLogger(cfg config.LogConfig, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.Level)) // Validate already checked it
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// runWorker wires the worker and runs it until ctx ends (or, with a demo,
// until every demo job is done), then shuts down in order: drain the
// pipeline, flush the sinks, commit and leave the group, stop serving
// metrics, stop the embedded broker.
func runWorker(ctx context.Context, cfg config.Config, opts runOptions, demo *demo, log *slog.Logger) error {
	brokers := cfg.Kafka.Brokers
	topics := []string{cfg.Kafka.JobsTopic, cfg.Kafka.ReadyTopic, cfg.Kafka.DLQTopic}
	if len(brokers) == 0 {
		b, err := embedded.Start(embedded.Config{
			Addr: cfg.Kafka.EmbeddedListen, Topics: topics, Partitions: cfg.Kafka.EmbeddedPartitions,
			MaxMessageBytes: int(max(cfg.Kafka.MaxMessageBytes+1024, 1_048_588)),
		})
		if err != nil {
			return err
		}
		defer b.Close()
		brokers = []string{b.Addr()}
		log.Info("no kafka.brokers configured: started the embedded Kafka broker; its data lives in memory only and is lost when the worker stops",
			"addr", b.Addr(), "topics", topics, "partitions", cfg.Kafka.EmbeddedPartitions)
	}
	kcfg := cfg.Kafka.Connection(brokers)

	plan, err := memoryPlan(cfg)
	if err != nil {
		return err
	}
	plan.Apply()
	floor := memlimit.StartHeapFloor(plan.FloorBytes)
	defer floor.Stop()
	log.Info("memory budget", "limit_bytes", plan.LimitBytes, "go_limit_bytes", plan.GoLimitBytes, "from", plan.Source, "gc_floor_bytes", plan.FloorBytes)

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, err := metrics.New(reg)
	if err != nil {
		return err
	}
	if err := m.RegisterMemory(plan.LimitBytes, plan.GoLimitBytes); err != nil {
		return err
	}
	// The probes answer before anything waits on the brokers: alive, and not
	// ready with the reason, until the runner's own checks replace them.
	probes := health.Starting(fmt.Sprintf("waiting for topic leaders of %v on %v", topics, brokers))
	probeHandler := health.Handler(reg, probes.Live, probes.Ready)
	srv, err := health.Listen(cfg.Metrics.Listen, metrics.WithPprof(probeHandler, cfg.Metrics.Pprof))
	if err != nil {
		return err
	}
	defer srv.Close(context.Background()) // the error path; the clean path closes it in order below
	log.Info("probes and metrics listening", "addr", srv.Addr())
	if err := ensureTopics(ctx, kcfg, topics, cfg.Kafka.EmbeddedPartitions, probes, log); err != nil {
		return err
	}
	var proc pipeline.JobProcessor = pipeline.NoOp
	if opts.noop {
		log.Warn("--noop: records pass through unchanged; the pipeline does not run")
	} else {
		p, imgs, closeImages, err := newProcessor(cfg, m.StageObserver)
		if err != nil {
			return err
		}
		defer closeImages()
		proc = p
		if err := m.RegisterImages(func() metrics.ImageStats {
			s := imgs.Stats()
			return metrics.ImageStats{Resized: s.Resized, Omitted: s.Omitted, CacheHits: s.CacheHits, CacheMisses: s.CacheMisses}
		}); err != nil {
			return err
		}
	}

	proc, stopTracing, err := withTracing(ctx, cfg.Tracing, proc, log)
	if err != nil {
		return err
	}
	defer stopTracing()

	var closing atomic.Bool
	src, err := kafka.NewSource(kafka.SourceConfig{
		Config: kcfg, Topic: cfg.Kafka.JobsTopic, GroupID: cfg.Kafka.GroupID,
		MaxInFlightPerPartition: cfg.Kafka.MaxInflightPerPartition, CommitInterval: cfg.Kafka.CommitInterval,
		SessionTimeout: cfg.Kafka.SessionTimeout, HeartbeatInterval: cfg.Kafka.HeartbeatInterval, RebalanceTimeout: cfg.Kafka.RebalanceTimeout,
		MaxBytes:    int(max(cfg.Limits.MaxCompressedBytes, 1<<20)),
		ErrorLogger: readerErrorLogger(log, &closing),
	})
	if err != nil {
		return err
	}
	// opened are the closers of what is open so far; an error return
	// closes them, newest first.
	opened := []func(context.Context) error{src.Close}
	fail := func(err error) error {
		for i := len(opened) - 1; i >= 0; i-- {
			_ = opened[i](context.Background())
		}
		return err
	}
	if err := m.RegisterSource(func() metrics.SourceStats {
		s := src.Stats()
		return metrics.SourceStats{Lag: s.Lag, Partitions: len(s.Partitions), CommitErrors: s.CommitErrors}
	}); err != nil {
		return fail(err)
	}
	ready, err := newSink(cfg.Kafka, kcfg, cfg.Kafka.ReadyTopic)
	if err != nil {
		return fail(err)
	}
	opened = append(opened, ready.Close)
	dlq, err := newDeadLetterSink(cfg.Kafka, kcfg)
	if err != nil {
		return fail(err)
	}
	opened = append(opened, dlq.Close)

	// The drain gets four fifths of the shutdown deadline; committing and
	// leaving the group get the rest.
	rcfg := pipeline.RunnerConfigFrom(cfg, runtime.NumCPU())
	rcfg.ShutdownTimeout = cfg.Pipeline.ShutdownTimeout * 4 / 5
	deps := pipeline.RunnerDeps{Source: src, SourceName: metrics.SourceKafka, Ready: ready, DLQ: dlq, Processor: proc, Metrics: m, Logger: log}
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	if demo != nil {
		deps.OnDone = demo.observer(opts.stdout, cancelRun)
	}
	// NewRunner starts nothing, so an error before Run has no runner to
	// release; Run starts the pool and stops it before it returns.
	runner, err := pipeline.NewRunner(rcfg, deps)
	if err != nil {
		return fail(err)
	}

	probes.Set(liveCheck(runner), readyCheck(runner, src, cfg.Kafka.JobsTopic))
	closeHTTP, err := startSanitizeHTTP(cfg, runner, m, log, probeHandler)
	if err != nil {
		return fail(err)
	}
	opened = append(opened, closeHTTP)
	log.Info("worker started", "brokers", brokers, "group", cfg.Kafka.GroupID, "jobs_topic", cfg.Kafka.JobsTopic,
		"pool", rcfg.Workers, "metrics", "http://"+srv.Addr()+"/metrics")

	if demo != nil {
		if err := demo.produce(ctx, kcfg, cfg.Kafka); err != nil {
			return fail(err)
		}
		log.Info("demo: produced the example jobs; waiting for their outcomes", "jobs", len(demo.files), "dir", opts.produceDir)
	}

	runErr := runner.Run(runCtx)
	closing.Store(true)
	log.Info("pipeline drained; flushing, committing and leaving the group")
	closeCtx, cancelClose := context.WithTimeout(context.Background(), max(cfg.Pipeline.ShutdownTimeout/5, time.Second))
	defer cancelClose()
	errs := []error{runErr}
	errs = append(errs, closeHTTP(closeCtx), ready.Close(closeCtx), dlq.Close(closeCtx), src.Close(closeCtx), srv.Close(closeCtx))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	log.Info("worker stopped cleanly")
	return nil
}

// ensureTopics makes sure the topics exist and have leaders, trying again
// until ctx ends: a worker started during a broker outage waits for the
// brokers (its probes answer meanwhile, /readyz with the last error)
// instead of exiting and being restarted in a loop. Each attempt is bounded
// by topicAttempt; a failed one is logged and the next follows after a
// backoff that doubles up to 30 s.
func ensureTopics(ctx context.Context, kcfg kafka.Config, topics []string, partitions int, probes *health.Probes, log *slog.Logger) error {
	backoff := time.Second
	for {
		attempt, cancel := context.WithTimeout(ctx, topicAttempt)
		err := kcfg.EnsureTopics(attempt, topics, partitions)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("making sure the topics %v exist on %v: %w", topics, kcfg.Brokers, err)
		}
		why := fmt.Sprintf("waiting for topic leaders of %v on %v: %v", topics, kcfg.Brokers, err)
		probes.Waiting(why)
		log.Warn("the brokers are not ready; trying again", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return fmt.Errorf("making sure the topics %v exist on %v: %w", topics, kcfg.Brokers, err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

// topicAttempt bounds one attempt of ensureTopics.
const topicAttempt = 60 * time.Second

// readerErrorLogger logs kafka-go's reader errors at warn level, except two
// kinds that are not news: fetches of an idle partition that hit the
// reader's read deadline ("i/o timeout", kafka-go issues #726 and #998; the
// reader fetches again at once), and every error once the worker is closing
// the reader. Those go to debug. A broker that stays away also makes Read
// fail, which the runner logs itself.
func readerErrorLogger(log *slog.Logger, closing *atomic.Bool) kafkago.Logger {
	return kafkago.LoggerFunc(func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		level := slog.LevelWarn
		if closing.Load() || strings.HasSuffix(msg, "i/o timeout") {
			level = slog.LevelDebug
		}
		log.Log(context.Background(), level, "kafka reader: "+msg)
	})
}

// newSink opens the Sink of one output topic, compressing values longer
// than kafka.compress_above_bytes.
func newSink(cfg config.KafkaConfig, kcfg kafka.Config, topic string) (*kafka.Sink, error) {
	return openSink(cfg, kcfg, topic, int(cfg.CompressAboveBytes))
}

// newDeadLetterSink opens the dead-letter Sink. It never compresses, so a
// dead letter's value is the original byte for byte.
func newDeadLetterSink(cfg config.KafkaConfig, kcfg kafka.Config) (*kafka.Sink, error) {
	return openSink(cfg, kcfg, cfg.DLQTopic, -1)
}

func openSink(cfg config.KafkaConfig, kcfg kafka.Config, topic string, compressAbove int) (*kafka.Sink, error) {
	return kafka.NewSink(kafka.SinkConfig{
		Config: kcfg, Topic: topic, MaxMessageBytes: int(cfg.MaxMessageBytes), CompressAbove: compressAbove,
		CompressionLevel: compression.Level(cfg.CompressionLevel),
		BatchSize:        cfg.WriterBatchSize, BatchTimeout: cfg.WriterBatchTimeout,
	})
}

// liveCheck fails once the pool or its dispatcher stopped (and in the
// moment between the listener's start and Run's, which starts the pool).
func liveCheck(r *pipeline.Runner) health.Check {
	return func() error {
		if !r.Healthy() {
			return errors.New("the job pool is not running")
		}
		return nil
	}
}

// readyCheck passes while the pool runs and partitions are assigned.
func readyCheck(r *pipeline.Runner, src *kafka.Source, topic string) health.Check {
	return func() error {
		switch {
		case !r.Healthy():
			return errors.New("the job pool is not running")
		case !src.Ready():
			return fmt.Errorf("the consumer group has no stable assignment of %s yet", topic)
		case len(src.Partitions()) == 0:
			return fmt.Errorf("no partition of %s is assigned to this worker", topic)
		}
		return nil
	}
}

// memoryPlan is the memory budget of cfg: memory.limit_bytes, or
// memory.limit_ratio of the container's limit; a configuration whose bounds
// do not fit in it is refused with the arithmetic.
func memoryPlan(cfg config.Config) (memlimit.Plan, error) {
	return memlimit.Make(memlimit.Settings{
		LimitBytes: cfg.Memory.LimitBytes, ContainerLimitBytes: cfg.Memory.ContainerLimitBytes, Ratio: cfg.Memory.LimitRatio,
		DecodeBytes: cfg.Images.MaxDecodedBytes, CacheBytes: cfg.Images.CacheBytes, InflightBytes: cfg.Pipeline.MaxInflightBytes,
		FloorBytes: cfg.Memory.GCFloorBytes,
	}, "/sys/fs/cgroup")
}

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hygiene-dev/hygiene/internal/embedded"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// e2eRun is one end-to-end run: the worker binary as a subprocess between
// the jobs topic and the ready topic of a broker.
type e2eRun struct {
	Pipeline     string    `json:"pipeline"` // "real" or "noop" (the ceiling)
	Broker       string    `json:"broker"`
	Pool         int       `json:"pool"`
	Window       int       `json:"window"`
	Jobs         int       `json:"jobs"`
	Done         int       `json:"done"`
	DeadLetters  int       `json:"dead_letters"`
	Seconds      float64   `json:"seconds"`
	JobsPerSec   float64   `json:"jobs_per_sec"`
	MBPerSec     float64   `json:"mb_per_sec"`
	P50Ms        float64   `json:"p50_ms"`
	P95Ms        float64   `json:"p95_ms"`
	P99Ms        float64   `json:"p99_ms"`
	MaxMs        float64   `json:"max_ms"`
	WorkerCPUSec float64   `json:"worker_cpu_sec"`
	CPUMsPerJob  float64   `json:"worker_cpu_ms_per_job"`
	PeakRSSMB    float64   `json:"worker_peak_rss_mb"`
	CappedByTime bool      `json:"capped_by_time"`
	CDF          []float64 `json:"latency_percentiles_ms"` // latency at 0, 1, ..., 100 %
}

// e2eEnv is what every end-to-end run shares: the worker binary, the
// brokers (none: an embedded one per run) and a directory for the
// workers' logs.
type e2eEnv struct {
	worker  string
	brokers []string
	broker  string
	dir     string
	runs    int
}

// e2eSuite builds the worker and runs the real pipeline and the no-op
// ceiling at each pool size of the sweep, on the --brokers cluster or on an
// embedded broker started for each run with the same configuration.
func e2eSuite(ctx context.Context, o options, jobs *jobSet, log io.Writer) ([]e2eRun, error) {
	dir, worker, err := buildWorker(ctx, "hygiene-bench-e2e-", log)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	env := &e2eEnv{dir: dir, worker: worker, brokers: o.brokers}
	if len(env.brokers) == 0 {
		env.broker = "embedded kfake (in the bench process)"
	} else {
		if err := loopbackOnly(env.brokers); err != nil {
			return nil, err
		}
		env.broker = "Kafka at " + strings.Join(env.brokers, ",")
	}
	var out []e2eRun
	for _, pool := range o.pools {
		for _, noop := range []bool{false, true} {
			r, err := e2eOnce(ctx, o, env, jobs, pool, noop)
			if err != nil {
				return out, err
			}
			fmt.Fprintf(log, "  end to end %s, pool %d: %d/%d jobs in %.1fs, %.1f jobs/s, %.2f MB/s, p50 %.0f ms, p99 %.0f ms, worker CPU %.1f ms/job, peak RSS %.0f MB\n",
				r.Pipeline, pool, r.Done, r.Jobs, r.Seconds, r.JobsPerSec, r.MBPerSec, r.P50Ms, r.P99Ms, r.CPUMsPerJob, r.PeakRSSMB)
			out = append(out, r)
		}
	}
	return out, nil
}

// buildWorker makes a temporary directory (named with prefix; the caller
// removes it) and builds ./cmd/worker into it, and returns both paths. It
// builds the worker as the image and the release do, with
// GOEXPERIMENT=simd (the codec's vector scan), unless the environment
// names its own GOEXPERIMENT: a figure is then the shipped binary's.
func buildWorker(ctx context.Context, prefix string, log io.Writer) (dir, worker string, err error) {
	if dir, err = os.MkdirTemp("", prefix); err != nil {
		return "", "", fmt.Errorf("making a temporary directory: %w", err)
	}
	worker = filepath.Join(dir, "worker")
	experiment := workerExperiment()
	fmt.Fprintf(log, "  building the worker: GOEXPERIMENT=%s go build -o %s ./cmd/worker\n", experiment, worker)
	build := exec.CommandContext(ctx, "go", "build", "-o", worker, "./cmd/worker")
	build.Dir, build.Stdout, build.Stderr = moduleRoot(), log, log
	build.Env = append(os.Environ(), "GOEXPERIMENT="+experiment)
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("building the worker: %w", err)
	}
	return dir, worker, nil
}

// workerExperiment is the GOEXPERIMENT the bench builds the worker with:
// the environment's when it names one, else "simd", as the Dockerfile and
// scripts/image.sh build the release.
func workerExperiment() string {
	if e, set := os.LookupEnv("GOEXPERIMENT"); set {
		return e
	}
	return "simd"
}

// moduleRoot is the directory of the module's go.mod (the working
// directory when it cannot be found).
func moduleRoot() string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if gomod := strings.TrimSpace(string(out)); err == nil && gomod != "" && gomod != os.DevNull {
		return filepath.Dir(gomod)
	}
	return "."
}

// loopbackOnly refuses broker addresses that are not on this machine's
// loopback interface: a load run never leaves the host.
func loopbackOnly(brokers []string) error {
	for _, b := range brokers {
		host, _, err := net.SplitHostPort(b)
		if err != nil {
			return fmt.Errorf("--brokers: %q is not host:port", b)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("--brokers: %s is not a loopback address; the bench only loads this machine", b)
		}
	}
	return nil
}

// freeAddr returns a loopback address with a port nobody listens on now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// topicsOf are fresh topic and group names for run n, so no run sees
// another's records or offsets.
func topicsOf(n int) (jobs, ready, dlq, group string) {
	p := fmt.Sprintf("bench.%d.%d.%d", os.Getpid(), time.Now().Unix(), n)
	return p + ".jobs", p + ".ready", p + ".dlq", p + ".worker"
}

// e2eOnce runs the worker once and streams the jobs through it.
func e2eOnce(ctx context.Context, o options, env *e2eEnv, jobs *jobSet, pool int, noop bool) (e2eRun, error) {
	env.runs++
	jobsTopic, readyTopic, dlqTopic, group := topicsOf(env.runs)
	r := e2eRun{Pipeline: map[bool]string{false: "real", true: "noop"}[noop], Broker: env.broker, Pool: pool,
		Window: o.window, Jobs: len(jobs.values)}
	brokers := env.brokers
	if len(brokers) == 0 {
		// A fresh embedded broker per run: kfake keeps every record in
		// this process's memory, and a heap grown by earlier runs would
		// slow the later ones down.
		b, err := embedded.Start(embedded.Config{Addr: "127.0.0.1:0", Partitions: 4, MaxMessageBytes: 11 << 20})
		if err != nil {
			return r, fmt.Errorf("starting the embedded broker: %w", err)
		}
		defer b.Close()
		brokers = []string{b.Addr()}
	}
	setup, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := kafka.EnsureTopics(setup, brokers, []string{jobsTopic, readyTopic, dlqTopic}, 4); err != nil {
		return r, fmt.Errorf("creating the run's topics: %w", err)
	}
	metricsAddr, err := freeAddr()
	if err != nil {
		return r, err
	}
	w, err := startWorker(setup, env, noop, workerEnv(brokers, jobsTopic, readyTopic, dlqTopic, group, metricsAddr, pool))
	if err != nil {
		return r, err
	}
	defer w.stop()
	if err := w.waitReady(setup, metricsAddr); err != nil {
		return r, err
	}
	load, cancelLoad := context.WithTimeout(ctx, o.duration)
	defer cancelLoad()
	cpu0, err := procCPU(w.pid())
	if err != nil {
		return r, err
	}
	st, err := stream(load, ctx, brokers, jobsTopic, readyTopic, dlqTopic, jobs, o.window)
	if err != nil {
		return r, fmt.Errorf("%w (worker log: %s)", err, w.logTail())
	}
	cpu1, err := procCPU(w.pid())
	if err != nil {
		return r, err
	}
	rss, err := peakRSS(w.pid())
	if err != nil {
		return r, err
	}
	r.Done, r.DeadLetters, r.CappedByTime = st.done, st.dead, st.done+st.dead < len(jobs.values)
	r.Seconds = st.elapsed.Seconds()
	r.JobsPerSec = float64(st.done) / r.Seconds
	r.MBPerSec = float64(st.bytes) / 1e6 / r.Seconds
	r.WorkerCPUSec = (cpu1 - cpu0).Seconds()
	r.CPUMsPerJob = ms(cpu1-cpu0) / float64(max(st.done, 1))
	r.PeakRSSMB = float64(rss) / (1 << 20)
	r.CDF = percentiles(st.latencies)
	if len(r.CDF) > 0 {
		r.P50Ms, r.P95Ms, r.P99Ms, r.MaxMs = r.CDF[50], r.CDF[95], r.CDF[99], r.CDF[100]
	}
	if err := w.stop(); err != nil {
		return r, err
	}
	return r, nil
}

// maxMessageBytes bounds the record batches the bench and the worker
// produce: a broker's default max.message.bytes (1,048,588) applies to a
// whole batch, so a larger bound fails on a stock Kafka topic.
const maxMessageBytes = 1_000_000

// workerEnv is the worker's configuration for one run, as HYGIENE_
// variables: fresh topics and group, a free metrics port, the pool size,
// batches that fit a stock topic,
// and a one-byte image cache that holds nothing, so every job's images are
// resized as in process. (images.cache_bytes 0 is no cache now; the one
// byte is kept so that the runs stay those bench/results/HISTORY.md's
// figures came from.)
func workerEnv(brokers []string, jobs, ready, dlq, group, metricsAddr string, pool int) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HYGIENE_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"HYGIENE_KAFKA_BROKERS="+strings.Join(brokers, ","),
		"HYGIENE_KAFKA_JOBS_TOPIC="+jobs, "HYGIENE_KAFKA_READY_TOPIC="+ready, "HYGIENE_KAFKA_DLQ_TOPIC="+dlq,
		"HYGIENE_KAFKA_GROUP_ID="+group, "HYGIENE_METRICS_LISTEN="+metricsAddr,
		fmt.Sprintf("HYGIENE_PIPELINE_WORKERS=%d", pool), fmt.Sprintf("HYGIENE_KAFKA_MAX_MESSAGE_BYTES=%d", maxMessageBytes), "HYGIENE_IMAGES_CACHE_BYTES=1", "HYGIENE_LOG_LEVEL=warn",
	)
}

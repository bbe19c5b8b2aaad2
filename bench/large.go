package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// largeRun is one large history through `worker sanitize` (the whole
// default chain, largeTarget) at each GOMAXPROCS, against Python's
// json load and dump of the same file.
type largeRun struct {
	Messages int    `json:"messages"`
	Shape    string `json:"shape"` // largeShapes

	JobMB      float64        `json:"job_mb"`
	Sanitize   []largeProcess `json:"sanitize"`
	Python     largeProcess   `json:"python_json"`
	PythonOver float64        `json:"python_wall_over_sanitize_wall"` // at the most cores
}

// largeProcess is what one subprocess cost: wall time, its CPU time
// (user and system, from its rusage) and its peak resident set.
type largeProcess struct {
	Procs         int     `json:"gomaxprocs,omitempty"`
	WallMs        float64 `json:"wall_ms"`
	CPUMs         float64 `json:"cpu_ms"`
	PeakRSSMB     float64 `json:"peak_rss_mb"`
	PeakRSSOverIn float64 `json:"peak_rss_over_input"`
}

// largeTarget is the large suite's target: OpenAI Chat Completions, whose
// contract documents no request-size cap, so that a history over Anthropic's
// 32 MB cap runs the whole chain instead of being refused by request_size.
var largeTarget = transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}

// largeShapes are the histories of each length: the generator's realistic
// damage, and the clean kind most production histories are (nothing to
// repair, yet every byte decoded, checked and written: issue 22).
var largeShapes = []struct {
	name   string
	damage sessiongen.Damage
}{{"damaged", sessiongen.Realistic()}, {"clean", sessiongen.Damage{}}}

// pythonLoadDump is the baseline: the standard library's json, load and
// dump, as a user would try it.
const pythonLoadDump = "import json,sys\nwith open(sys.argv[1]) as f: d=json.load(f)\nwith open(sys.argv[2],'w') as f: json.dump(d,f)\n"

// largeSuite writes one generated job of each length in o.large and each
// of largeShapes (short texts, no images) to a file, runs `worker sanitize` on it
// once at each GOMAXPROCS of o.pools (up to the cores), and Python's json
// load and dump once. Of one job's work only the pairing repair is split
// across cores (pipeline.fanout_workers, cores - 1 helpers by default, so
// none at GOMAXPROCS 1); the other rules run on the job's goroutine, and a
// second core serves them only through the garbage collector. GOMAXPROCS is
// what the sweep sets, not pipeline.workers, which only matters with many
// jobs.
func largeSuite(ctx context.Context, o options, log io.Writer) ([]largeRun, error) {
	dir, worker, err := buildWorker(ctx, "hygiene-bench-large-", log)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	python, err := exec.LookPath("python3")
	if err != nil {
		return nil, fmt.Errorf("the large suite compares with python3, which is not on PATH: %w", err)
	}
	var out []largeRun
	for _, n := range o.large {
		for _, shape := range largeShapes {
			r, err := largeOne(ctx, o, dir, worker, python, n, shape.name, shape.damage, log)
			if err != nil {
				return out, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// largeOne measures one history of n messages with the given damage.
func largeOne(ctx context.Context, o options, dir, worker, python string, n int, shape string, damage sessiongen.Damage, log io.Writer) (largeRun, error) {
	gcfg := generatorConfig(o)
	gcfg.Messages, gcfg.Images, gcfg.TextChars, gcfg.ToolResultChars = n, 0, 60, 120
	gcfg.Target, gcfg.Damage = largeTarget, damage
	_, job := sessiongen.New(gcfg).Job(0)
	in := filepath.Join(dir, "job.json")
	if err := os.WriteFile(in, job, 0o644); err != nil {
		return largeRun{}, fmt.Errorf("writing the %d-message job: %w", n, err)
	}
	r := largeRun{Messages: n, Shape: shape, JobMB: float64(len(job)) / 1e6}
	job = nil // the subprocesses read the file; this process should not hold it
	env := append(os.Environ(),
		"HYGIENE_LIMITS_MAX_JOB_BYTES="+strconv.Itoa(1<<31),
		"HYGIENE_LIMITS_MAX_COMPRESSED_BYTES="+strconv.Itoa(1<<31),
		"HYGIENE_LIMITS_MAX_MESSAGES="+strconv.Itoa(2*n))
	for _, procs := range o.pools {
		if procs > runtime.NumCPU() {
			continue
		}
		p, err := runMeasured(ctx, exec.Command(worker, "sanitize", in), append(env, "GOMAXPROCS="+strconv.Itoa(procs)), r.JobMB)
		if err != nil {
			return r, fmt.Errorf("worker sanitize on %d messages: %w", n, err)
		}
		p.Procs = procs
		r.Sanitize = append(r.Sanitize, p)
	}
	var err error
	if r.Python, err = runMeasured(ctx, exec.Command(python, "-c", pythonLoadDump, in, filepath.Join(dir, "python-out.json")), os.Environ(), r.JobMB); err != nil {
		return r, fmt.Errorf("python json on %d messages: %w", n, err)
	}
	if len(r.Sanitize) == 0 {
		return r, fmt.Errorf("--pools %v has no size within the %d cores", o.pools, runtime.NumCPU())
	}
	if last := r.Sanitize[len(r.Sanitize)-1]; last.WallMs > 0 {
		r.PythonOver = r.Python.WallMs / last.WallMs
	}
	for _, p := range r.Sanitize {
		fmt.Fprintf(log, "  large: %d messages, %s (%.0f MB): worker sanitize GOMAXPROCS=%d %.0f ms (CPU %.0f ms, peak RSS %.0f MB = %.1fx input)\n",
			n, shape, r.JobMB, p.Procs, p.WallMs, p.CPUMs, p.PeakRSSMB, p.PeakRSSOverIn)
	}
	fmt.Fprintf(log, "  large: %d messages, %s: python json load+dump %.0f ms (CPU %.0f ms): %.1fx the sanitize wall time\n",
		n, shape, r.Python.WallMs, r.Python.CPUMs, r.PythonOver)
	return r, nil
}

// runMeasured runs cmd to completion (output discarded) and returns its
// wall time, CPU time and peak RSS.
func runMeasured(ctx context.Context, cmd *exec.Cmd, env []string, inputMB float64) (largeProcess, error) {
	cmd.Env, cmd.Stdout = env, io.Discard
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return largeProcess{}, err
	}
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	defer stop()
	err := cmd.Wait()
	wall := time.Since(start)
	if err != nil {
		return largeProcess{}, fmt.Errorf("%w: %s", err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return largeProcess{}, errors.New("no rusage for the subprocess")
	}
	p := largeProcess{WallMs: ms(wall), CPUMs: ms(time.Duration(ru.Utime.Nano() + ru.Stime.Nano())),
		PeakRSSMB: float64(ru.Maxrss) * 1024 / 1e6} // Maxrss is in KiB on Linux
	if inputMB > 0 {
		p.PeakRSSOverIn = p.PeakRSSMB / inputMB
	}
	return p, nil
}

// limitedBuffer keeps the first 4 KiB written to it: a subprocess's error
// output, for the error message.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return string(l.b) }

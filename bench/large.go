package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// largeRun is one large history through `worker sanitize` (the whole
// default chain, largeTarget) at each GOMAXPROCS, against Python's json
// load and dump of the same file in the same run.
type largeRun struct {
	Messages int    `json:"messages"` // in the history measured
	Shape    string `json:"shape"`    // "damaged" or "clean" (largeSuite)
	// Of is the damaged history's length a clean history was made from.
	Of int `json:"of_messages,omitempty"`
	// Repairs is what the chain's report says it changed (stage counts);
	// empty for the clean shape, which the suite refuses otherwise.
	Repairs string `json:"repairs,omitempty"`

	JobMB float64 `json:"job_mb"`
	// PythonBuild is the baseline's interpreter: its version and the
	// executable that ran (sys.executable, so a shim on PATH shows what it
	// started). Python's time, and so every ratio here, moves with it: on
	// one machine a Debian build and a pyenv build without PGO took 3.4 and
	// 4.2 s for the same file.
	PythonBuild string `json:"python_build"`
	// Rounds is how many times each process below ran (--large-rounds):
	// its figures are the medians of its rounds.
	Rounds   int            `json:"rounds"`
	Sanitize []largeProcess `json:"sanitize"`
	Python   largeProcess   `json:"python_json"`
	// PythonOver is Python's wall time over the sanitize wall time at the
	// most cores (each largeProcess has its own ratios).
	PythonOver float64 `json:"python_wall_over_sanitize_wall"`
	// CoresOverOne is the sanitize wall time at the most cores over the one
	// at GOMAXPROCS 1 (issue 22's "2 workers vs 1"; 0 when not both ran).
	CoresOverOne float64 `json:"wall_most_cores_over_one,omitempty"`
}

// largeProcess is what one subprocess cost: wall time, its CPU time
// (user and system, from its rusage) and its peak resident set (rusage
// Maxrss), each the median of its rounds, and for `worker sanitize` the
// same three against Python's.
type largeProcess struct {
	Procs         int     `json:"gomaxprocs,omitempty"`
	WallMs        float64 `json:"wall_ms"`
	CPUMs         float64 `json:"cpu_ms"`
	PeakRSSMB     float64 `json:"peak_rss_mb"`
	PeakRSSOverIn float64 `json:"peak_rss_over_input"`
	// WallMsRounds are the wall times of its rounds, in the order they ran.
	WallMsRounds []float64 `json:"wall_ms_rounds,omitempty"`

	PythonWallOver float64 `json:"python_wall_over,omitempty"`     // Python's wall time over this one's
	PythonCPUOver  float64 `json:"python_cpu_over,omitempty"`      // Python's CPU time over this one's
	RSSOverPython  float64 `json:"peak_rss_over_python,omitempty"` // this peak RSS over Python's
}

// largeShapes are the two histories of each length, in the order they
// run: the generator's realistic damage, then the clean kind most
// production histories are (the damaged one's ready payload fed back, see
// cleanJob).
var largeShapes = []string{"damaged", "clean"}

// pythonLoadDump is the baseline: the standard library's json, load and
// dump, as a user would try it.
const pythonLoadDump = "import json,sys\nwith open(sys.argv[1]) as f: d=json.load(f)\nwith open(sys.argv[2],'w') as f: json.dump(d,f)\n"

// largeSuite runs, for each length in o.large (--large), the damaged
// history (largeDamaged) and then the clean one made from its ready
// payload (cleanJob), each written to a file: `worker sanitize` once at
// each GOMAXPROCS of o.pools (up to the cores), writing its payload to a
// file as Python does, and Python's json load and dump once. Of one job's
// work only the passes that fan out are split across cores
// (pipeline.fanout_workers, GOMAXPROCS - 1 helpers by default, so none at
// GOMAXPROCS 1); the rest runs on the job's goroutine, and a second core
// serves it only through the garbage collector. GOMAXPROCS is what the
// sweep sets, not pipeline.workers, which only matters with many jobs.
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
	build, err := pythonBuild(ctx, python)
	if err != nil {
		return nil, err
	}
	l := largeBench{o: o, dir: dir, worker: worker, python: python, pythonBuild: build, log: log}
	var out []largeRun
	for _, n := range o.large {
		job := largeDamaged(o, n)
		options, err := jobOptions(job)
		if err != nil {
			return out, err
		}
		damaged, payload, err := l.measure(ctx, n, "damaged", job)
		if err != nil {
			return out, err
		}
		out = append(out, damaged)
		clean, messages, err := cleanJob(payload, options)
		payload = nil
		if err != nil {
			return out, err
		}
		r, _, err := l.measure(ctx, messages, "clean", clean)
		r.Of = n
		if err == nil && r.Repairs != "" {
			err = fmt.Errorf("the clean history of %d messages was repaired:%s", messages, r.Repairs)
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// largeBench is what every measurement of the large suite shares.
type largeBench struct {
	o                   options
	dir, worker, python string
	pythonBuild         string // largeRun.PythonBuild
	log                 io.Writer
}

// pythonBuild returns the version and executable of the interpreter python
// starts, as largeRun.PythonBuild records them ("3.11.2 /usr/bin/python3").
func pythonBuild(ctx context.Context, python string) (string, error) {
	out, err := exec.CommandContext(ctx, python, "-c", "import sys; print(sys.version.split()[0], sys.executable)").Output()
	if err != nil {
		return "", fmt.Errorf("asking %s its version: %w", python, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// measure writes job (n messages) to a file, runs worker sanitize on it at
// each GOMAXPROCS and then Python, in o.largeRounds rounds, and returns
// each process's medians and the ready payload of the first sanitize run.
// One sample of a process swings by a third or more on a shared machine;
// the rounds alternate the processes, so a slow minute slows each of them
// once, and the median leaves it out.
func (l largeBench) measure(ctx context.Context, n int, shape string, job []byte) (largeRun, []byte, error) {
	in, out := filepath.Join(l.dir, "job.json"), filepath.Join(l.dir, "out.json")
	if err := os.WriteFile(in, job, 0o644); err != nil {
		return largeRun{}, nil, fmt.Errorf("writing the %d-message job: %w", n, err)
	}
	r := largeRun{Messages: n, Shape: shape, JobMB: float64(len(job)) / 1e6, PythonBuild: l.pythonBuild}
	// The suite measures the chain over the whole history: a context window
	// no history here reaches, so the fit's cheap bound passes it and the
	// clean job is the whole payload fed back (a million-message history is
	// over every model's window; fitting it is measured by
	// BenchmarkContextFit in internal/stages).
	env := append(os.Environ(),
		"HYGIENE_LIMITS_MAX_JOB_BYTES="+strconv.Itoa(1<<31),
		"HYGIENE_LIMITS_MAX_COMPRESSED_BYTES="+strconv.Itoa(1<<31),
		"HYGIENE_LIMITS_MAX_MESSAGES="+strconv.Itoa(2*n),
		"HYGIENE_CONTEXT_WINDOW_TOKENS="+strconv.Itoa(1<<40))
	var procs []int
	for _, p := range l.o.pools {
		if p <= runtime.NumCPU() {
			procs = append(procs, p)
		}
	}
	if len(procs) == 0 {
		return r, nil, fmt.Errorf("--pools %v has no size within the %d cores", l.o.pools, runtime.NumCPU())
	}
	r.Rounds = l.o.largeRounds
	sanitize := make([][]largeProcess, len(procs)) // each GOMAXPROCS's rounds
	var python []largeProcess
	var payload []byte
	for range r.Rounds {
		for i, p := range procs {
			s, err := runMeasured(ctx, l.python, []string{l.worker, "sanitize", in}, append(env, "GOMAXPROCS="+strconv.Itoa(p)), out, r.JobMB)
			if err != nil {
				return r, nil, fmt.Errorf("worker sanitize on %d messages, %s: %w", n, shape, err)
			}
			sanitize[i] = append(sanitize[i], s)
			if payload == nil {
				if payload, err = os.ReadFile(out); err != nil {
					return r, nil, err
				}
			}
		}
		p, err := runMeasured(ctx, l.python, []string{l.python, "-c", pythonLoadDump, in, out}, os.Environ(), "", r.JobMB)
		if err != nil {
			return r, nil, fmt.Errorf("python json on %d messages, %s: %w", n, shape, err)
		}
		python = append(python, p)
	}
	for i, p := range procs {
		s := medianProcess(sanitize[i])
		s.Procs = p
		r.Sanitize = append(r.Sanitize, s)
	}
	r.Python = medianProcess(python)
	parsed, err := parsePayload(payload)
	if err != nil {
		return r, nil, err
	}
	r.Repairs = strings.TrimSpace(parsed.repairs())
	r.ratios()
	for _, p := range r.Sanitize {
		fmt.Fprintf(l.log, "  large: %d messages, %s (%.0f MB), medians of %d rounds: worker sanitize GOMAXPROCS=%d %.0f ms %.0f (CPU %.0f ms, peak RSS %.0f MB = %.1fx input): Python over it %.1fx wall, %.1fx CPU; RSS %.2fx Python's\n",
			n, shape, r.JobMB, r.Rounds, p.Procs, p.WallMs, p.WallMsRounds, p.CPUMs, p.PeakRSSMB, p.PeakRSSOverIn, p.PythonWallOver, p.PythonCPUOver, p.RSSOverPython)
	}
	fmt.Fprintf(l.log, "  large: %d messages, %s: python json load+dump (%s) %.0f ms %.0f (CPU %.0f ms, peak RSS %.0f MB)\n",
		n, shape, r.PythonBuild, r.Python.WallMs, r.Python.WallMsRounds, r.Python.CPUMs, r.Python.PeakRSSMB)
	return r, payload, nil
}

// medianProcess is the median of each figure of one process's rounds
// (the mean of the middle two of an even count), with the wall times of
// every round.
func medianProcess(rounds []largeProcess) largeProcess {
	median := func(figure func(largeProcess) float64) float64 {
		v := make([]float64, len(rounds))
		for i, p := range rounds {
			v[i] = figure(p)
		}
		slices.Sort(v)
		return (v[(len(v)-1)/2] + v[len(v)/2]) / 2
	}
	m := largeProcess{
		WallMs:        median(func(p largeProcess) float64 { return p.WallMs }),
		CPUMs:         median(func(p largeProcess) float64 { return p.CPUMs }),
		PeakRSSMB:     median(func(p largeProcess) float64 { return p.PeakRSSMB }),
		PeakRSSOverIn: median(func(p largeProcess) float64 { return p.PeakRSSOverIn }),
	}
	for _, p := range rounds {
		m.WallMsRounds = append(m.WallMsRounds, p.WallMs)
	}
	return m
}

// ratios fills every sanitize process's ratios against Python's, and the
// run's headline ratios.
func (r *largeRun) ratios() {
	over := func(a, b float64) float64 {
		if b <= 0 {
			return 0
		}
		return a / b
	}
	for i := range r.Sanitize {
		p := &r.Sanitize[i]
		p.PythonWallOver, p.PythonCPUOver = over(r.Python.WallMs, p.WallMs), over(r.Python.CPUMs, p.CPUMs)
		p.RSSOverPython = over(p.PeakRSSMB, r.Python.PeakRSSMB)
	}
	first, last := r.Sanitize[0], r.Sanitize[len(r.Sanitize)-1]
	r.PythonOver = last.PythonWallOver
	if first.Procs == 1 && last.Procs > 1 {
		r.CoresOverOne = over(last.WallMs, first.WallMs)
	}
}

// runMeasured runs argv to completion through python's spawnMeasured, its
// standard output to the file stdout ("": discarded), and returns its wall
// time, CPU time and peak RSS as spawnMeasured reports them.
func runMeasured(ctx context.Context, python string, argv, env []string, stdout string, inputMB float64) (largeProcess, error) {
	report, err := os.CreateTemp("", "hygiene-bench-rusage-")
	if err != nil {
		return largeProcess{}, err
	}
	report.Close()
	defer os.Remove(report.Name())
	cmd := exec.Command(python, append([]string{"-c", spawnMeasured, report.Name()}, argv...)...)
	cmd.Env, cmd.Stdout = env, io.Discard
	if stdout != "" {
		f, err := os.Create(stdout)
		if err != nil {
			return largeProcess{}, err
		}
		defer f.Close()
		cmd.Stdout = f
	}
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return largeProcess{}, err
	}
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	defer stop()
	if err := cmd.Wait(); err != nil {
		return largeProcess{}, fmt.Errorf("%w: %s", err, stderr.String())
	}
	figures, err := os.ReadFile(report.Name())
	if err != nil {
		return largeProcess{}, err
	}
	var maxrssKiB, cpuS, wallS float64
	if _, err := fmt.Sscan(string(figures), &maxrssKiB, &cpuS, &wallS); err != nil {
		return largeProcess{}, fmt.Errorf("the rusage of %s: %q: %w", argv[0], figures, err)
	}
	p := largeProcess{WallMs: wallS * 1e3, CPUMs: cpuS * 1e3, PeakRSSMB: maxrssKiB * 1024 / 1e6} // ru_maxrss is in KiB on Linux
	if inputMB > 0 {
		p.PeakRSSOverIn = p.PeakRSSMB / inputMB
	}
	return p, nil
}

// spawnMeasured runs sys.argv[2:] as a child of a fork of this small
// Python process and writes the child's rusage peak RSS (KiB), CPU seconds
// and wall seconds to the file sys.argv[1], exiting with the child's
// status. It first waits for the disk to write back what earlier
// processes wrote (os.sync, before the clock starts): the 40 MB payload of
// a 100k-message history took this VM up to 300 ms to write back, and
// the process after the one that wrote it paid for that. A Go process starts its children with vfork, and Linux counts
// the parent's peak RSS as the child's when the child execs (its memory
// was the parent's until then), so a child of the bench process itself
// reports at least the bench's peak RSS (~290 MB after generating a
// 100k-message history): its rusage cannot measure a worker smaller than
// that. A child of this fork starts from Python's ~10 MB.
const spawnMeasured = `import os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
os.sync()
start = time.monotonic()
pid = os.fork()
if pid == 0:
    try:
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.monotonic() - start
with open(out, "w") as f:
    f.write("%d %.6f %.6f\n" % (ru.ru_maxrss, ru.ru_utime + ru.ru_stime, wall))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 1)
`

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

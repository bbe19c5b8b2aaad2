package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// TestQuickInProcess runs the in-process part of --quick on a few jobs and
// writes its results, so the harness cannot rot.
func TestQuickInProcess(t *testing.T) {
	o, err := parseOptions([]string{"--quick", "--suite", "inproc", "--jobs", "6", "--duration", "2m", "--out", t.TempDir()}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runSuites(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.InProcess) != 1 {
		t.Fatalf("got %d in-process runs, want 1 (quick sweeps concurrency 2 only)", len(res.InProcess))
	}
	r := res.InProcess[0]
	if r.Jobs != 6 || r.DeadLetters != 0 || r.CappedByTime || r.JobsPerSec <= 0 || r.MBPerSec <= 0 {
		t.Errorf("run = %+v, want all 6 jobs ready within the cap", r)
	}
	var sum float64
	names := map[string]bool{}
	for _, s := range r.Stages {
		sum += s.Share
		names[s.Stage] = true
	}
	if math.Abs(sum-1) > 0.01 {
		t.Errorf("stage shares sum to %.3f, want 1", sum)
	}
	for _, want := range []string{"images", "tool_result_pairing", "decode+encode"} {
		if !names[want] {
			t.Errorf("no share for stage %q in %v", want, r.Stages)
		}
	}
	if err := writeResults(o, res, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(o.out, "quick.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back results
	if err := json.Unmarshal(data, &back); err != nil || len(back.InProcess) != 1 || back.Workload.Jobs != 6 {
		t.Errorf("quick.json does not hold the run: %v %+v", err, back.Workload)
	}
	if st, err := os.Stat(filepath.Join(o.out, "quick-throughput.png")); err != nil || st.Size() == 0 {
		t.Errorf("no throughput plot: %v", err)
	}
}

func TestParseOptionsErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--suite", "nope"}, {"--jobs", "0"}, {"--duration", "-1s"}, {"--image-size", "big"},
		{"--concurrency", "1,x"}, {"--pools", "0"}, {"--window", "0"}, {"extra"}, {"--tool-output", "1.5"}, {"--tool-output", "-0.1"},
	} {
		if _, err := parseOptions(args, io.Discard); err == nil {
			t.Errorf("parseOptions(%q) = nil error, want one", args)
		}
	}
}

// TestToolOutputFlag: --tool-output 1 puts tool output (tabs, newlines) in
// the generated jobs' results, where the default prose has none.
func TestToolOutputFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{{[]string{"--jobs", "3"}, false}, {[]string{"--jobs", "3", "--tool-output", "1"}, true}} {
		o, err := parseOptions(c.args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		jobs := generateJobs(o)
		if got := bytes.Contains(jobs.values[0], []byte(`\t`)) && bytes.Contains(jobs.values[0], []byte(`\n`)); got != c.want {
			t.Errorf("%q: tool output in the first job %v, want %v", c.args, got, c.want)
		}
		if w := jobs.workload(o); w.ToolOutput != o.toolOutput {
			t.Errorf("%q: the results say tool_output %g, the run used %g", c.args, w.ToolOutput, o.toolOutput)
		}
	}
}

func TestParseOptionsQuickKeepsExplicitFlags(t *testing.T) {
	o, err := parseOptions([]string{"--quick", "--jobs", "7", "--suite", "codec,e2e"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.jobs != 7 || o.duration != 5*time.Second || o.name != "quick" || strings.Join(o.suites, ",") != "codec,e2e" {
		t.Errorf("options = %+v", o)
	}
}

func TestPercentiles(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	p := percentiles(lat)
	for pct, want := range map[int]float64{0: 1, 1: 1, 50: 50, 95: 95, 99: 99, 100: 100} {
		if p[pct] != want {
			t.Errorf("p%d = %v, want %v", pct, p[pct], want)
		}
	}
	if percentiles(nil) != nil {
		t.Error("percentiles of nothing should be nil")
	}
}

func TestJobNumber(t *testing.T) {
	payload := []byte(`{"job_id":"job-42","tenant":"t","messages":[]}`)
	for name, rec := range map[string]transport.Record{
		"plain": {Value: payload},
		"zstd":  transport.Record{Value: payload}.Compressed(0, compression.LevelDefault),
	} {
		if n, err := jobNumber(rec); err != nil || n != 42 {
			t.Errorf("%s: jobNumber = %d, %v; want 42", name, n, err)
		}
	}
	if _, err := jobNumber(transport.Record{Value: []byte(`{"job_id":"other"}`)}); err == nil {
		t.Error("a record without a generated job id should be an error")
	}
}

func TestLoopbackOnly(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:19092": true, "localhost:9092": true, "[::1]:9092": true,
		"10.0.0.5:9092": false, "kafka.example.com:9092": false, "127.0.0.1": false,
	} {
		if err := loopbackOnly([]string{addr}); (err == nil) != ok {
			t.Errorf("loopbackOnly(%s) = %v, want ok=%v", addr, err, ok)
		}
	}
}

func TestRowCommand(t *testing.T) {
	o, err := parseOptions([]string{"--seed", "3", "--suite", "all", "--pools=1,2", "--out", "x", "--jobs", "50"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := o.rowCommand("--suite", "e2e", "--pools", "2")
	if want := "go run ./bench --suite e2e --pools 2 --seed 3 --jobs 50"; got != want {
		t.Errorf("rowCommand = %q, want %q", got, want)
	}
}

func TestHotKeyShare(t *testing.T) {
	s := &jobSet{keys: [][]byte{[]byte("a/1"), []byte("a/1"), []byte("b/2"), []byte("a/1")}}
	if got := s.hotKeyShare(); got != 0.75 {
		t.Errorf("hotKeyShare = %v, want 0.75", got)
	}
}

// TestMedianProcess: each figure is its own median over the rounds (the
// middle two's mean for an even count), and every round's wall time is
// kept in order.
func TestMedianProcess(t *testing.T) {
	rounds := []largeProcess{
		{WallMs: 900, CPUMs: 10, PeakRSSMB: 3, PeakRSSOverIn: 0.3},
		{WallMs: 100, CPUMs: 30, PeakRSSMB: 1, PeakRSSOverIn: 0.1},
		{WallMs: 300, CPUMs: 20, PeakRSSMB: 2, PeakRSSOverIn: 0.2},
	}
	got := medianProcess(rounds)
	want := largeProcess{WallMs: 300, CPUMs: 20, PeakRSSMB: 2, PeakRSSOverIn: 0.2, WallMsRounds: []float64{900, 100, 300}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("odd: %+v, want %+v", got, want)
	}
	if got := medianProcess(rounds[:2]); got.WallMs != 500 || got.CPUMs != 20 {
		t.Errorf("even: wall %v, CPU %v; want 500, 20", got.WallMs, got.CPUMs)
	}
}

// TestLargeSuiteMeasuresBothWays runs the large suite on a small history
// of each shape (damaged, then clean from its payload): worker sanitize and
// python's json both ran on the same file and were measured, the ratios
// against Python were taken, and the clean history had nothing to repair.
// pythonBuildForm is largeRun.PythonBuild: "3.11.2 /usr/bin/python3".
var pythonBuildForm = regexp.MustCompile(`^3\.\d+\.\d+\S* /\S+$`)

func TestLargeSuiteMeasuresBothWays(t *testing.T) {
	o, err := parseOptions([]string{"--suite", "large", "--large", "2000", "--pools", "1", "--large-rounds", "3", "--out", t.TempDir()}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := largeSuite(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != len(largeShapes) {
		t.Fatalf("runs = %+v, want one per shape", runs)
	}
	for i, r := range runs {
		if r.Shape != largeShapes[i] || r.JobMB <= 0 || len(r.Sanitize) != 1 {
			t.Fatalf("run %d = %+v", i, r)
		}
		if !pythonBuildForm.MatchString(r.PythonBuild) {
			t.Errorf("%s: python build %q, want its version and executable", r.Shape, r.PythonBuild)
		}
		s, p := r.Sanitize[0], r.Python
		for _, q := range []largeProcess{s, p} {
			if r.Rounds != 3 || len(q.WallMsRounds) != 3 || slices.Min(q.WallMsRounds) > q.WallMs || q.WallMs > slices.Max(q.WallMsRounds) {
				t.Fatalf("%s: %d rounds, wall %v ms, not the median of its rounds %v", r.Shape, r.Rounds, q.WallMs, q.WallMsRounds)
			}
		}
		if s.Procs != 1 || s.WallMs <= 0 || s.PeakRSSMB <= 0 || p.WallMs <= 0 || p.PeakRSSMB <= 0 || r.PythonOver <= 0 ||
			s.PythonWallOver != r.PythonOver || s.PythonCPUOver <= 0 || s.RSSOverPython <= 0 {
			t.Fatalf("%s: sanitize %+v, python %+v, ratio %v", r.Shape, s, p, r.PythonOver)
		}
	}
	damaged, clean := runs[0], runs[1]
	if damaged.Messages != 2000 || damaged.Repairs == "" {
		t.Errorf("damaged run = %+v, want 2000 messages and repairs", damaged)
	}
	if clean.Of != 2000 || clean.Messages < 1000 || clean.Repairs != "" {
		t.Errorf("clean run = %+v, want the payload of the 2000 messages with nothing repaired", clean)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

func TestRunCommandUsageErrors(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"unknown flag", []string{"--bogus"}, exitUsage, "bogus"},
		{"stray argument", []string{"now"}, exitUsage, `unexpected argument "now"`},
		{"missing config file", []string{"--config", filepath.Join(empty, "nope.yaml")}, exitUsage, "nope.yaml"},
		{"demo dir without jobs", []string{"--produce", empty}, exitUsage, "holds no *.json job"},
		{"help", []string{"--help"}, exitOK, "usage: worker run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := runCommand(tt.args, &stdout, &stderr); code != tt.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.says) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tt.says)
			}
		})
	}
}

// TestRunProducesTheExamples is the README's first command: the embedded
// broker, every example job produced to it, one line per outcome, exit 0.
func TestRunProducesTheExamples(t *testing.T) {
	embeddedOnly(t)
	t.Setenv("HYGIENE_KAFKA_EMBEDDED_LISTEN", "127.0.0.1:0")
	t.Setenv("HYGIENE_METRICS_LISTEN", "127.0.0.1:0")
	examples, err := filepath.Glob("../../examples/*.json")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples/*.json to produce (%v)", err)
	}
	var stdout, stderr bytes.Buffer
	if code := runCommand([]string{"--produce", "../../examples"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != len(examples) {
		t.Fatalf("%d lines for %d examples:\n%s", len(lines), len(examples), stdout.String())
	}
	for _, l := range lines {
		if !strings.Contains(l, " ready ") && !strings.Contains(l, " dead_letter ") {
			t.Errorf("line names no outcome: %q", l)
		}
	}
	if !strings.Contains(stderr.String(), "data lives in memory") {
		t.Errorf("the log does not say the embedded broker keeps its data in memory:\n%s", stderr.String())
	}
}

// TestEmbeddedBrokerTakesKcat checks that any Kafka client can produce to
// the embedded broker: kcat writes a job, kcat reads its ready payload, and
// the worker stops cleanly without leaking goroutines.
func TestEmbeddedBrokerTakesKcat(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Fatal("kcat is needed for this test (apt-get install kcat)")
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cfg := config.Default()
	cfg.Kafka.EmbeddedListen = "127.0.0.1:0"
	cfg.Metrics.Listen = "127.0.0.1:0"
	logs := &logWatch{want: "started the embedded Kafka broker", found: make(chan map[string]any, 1)}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- runWorker(ctx, cfg, runOptions{stdout: io.Discard}, nil, log) }()
	var addr string
	select {
	case entry := <-logs.found:
		addr, _ = entry["addr"].(string)
	case err := <-errc:
		t.Fatalf("the worker stopped before starting its broker: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the embedded broker did not start within 30s")
	}

	job := `{"job_id":"kcat-1","tenant":"acme","session_id":"s1","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"messages":[{"role":"user","content":"hi","timestamp":1776000000000}]}`
	produce := exec.Command(kcat, "-P", "-b", addr, "-t", cfg.Kafka.JobsTopic, "-K", "\t")
	produce.Stdin = strings.NewReader("acme/s1\t" + job + "\n")
	if out, err := produce.CombinedOutput(); err != nil {
		t.Fatalf("kcat -P: %v: %s", err, out)
	}
	var payload []byte
	// A real broker on a real socket, read by a real kcat process: no
	// fake clock reaches them, so the test polls the ready topic (every
	// 200ms, for at most 30s) until the worker has written it.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		consume := exec.Command(kcat, "-C", "-b", addr, "-t", cfg.Kafka.ReadyTopic, "-o", "beginning", "-e", "-q", "-f", "%k\t%s\n")
		if out, err := consume.Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
			payload = out
			break
		}
	}
	key, value, _ := strings.Cut(strings.TrimSpace(string(payload)), "\t")
	var ready struct {
		JobID string `json:"job_id"`
	}
	if key != "acme/s1" || json.Unmarshal([]byte(value), &ready) != nil || ready.JobID != "kcat-1" {
		t.Fatalf("ready topic holds %q, want the payload of job kcat-1 under key acme/s1", payload)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("the worker's shutdown: %v", err)
	}
}

// logWatch is a log writer that reports the first JSON entry whose message
// contains want.
type logWatch struct {
	want  string
	found chan map[string]any
	mu    sync.Mutex
	once  sync.Once
}

func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var entry map[string]any
	if json.Unmarshal(p, &entry) == nil {
		if msg, _ := entry["msg"].(string); strings.Contains(msg, w.want) {
			w.once.Do(func() { w.found <- entry })
		}
	}
	return len(p), nil
}

func TestDescribe(t *testing.T) {
	report := stage.NewReport()
	report.Changed = true
	report.Add("tool_result_pairing", "synthetic", 2)
	report.Add("images", "resized", 1)
	tests := []struct {
		name string
		done pipeline.Done
		want []string
	}{
		{"changed", pipeline.Done{Record: transport.Record{Value: make([]byte, 100)}, Written: 80,
			Outcome: pipeline.Outcome{Ready: true, JobID: "j1", Report: report}},
			[]string{"job=j1", "ready", "100 -> 80 bytes", "images.resized=1 tool_result_pairing.synthetic=2"}},
		{"unchanged", pipeline.Done{Outcome: pipeline.Outcome{Ready: true, JobID: "j2", Report: stage.NewReport()}},
			[]string{"job=j2", "unchanged"}},
		{"dead letter", pipeline.Done{Outcome: pipeline.Outcome{Code: "invalid_json", Stage: "decode", Error: "offset 3: unexpected end\nmore"}},
			[]string{"job=-", "dead_letter", "invalid_json (stage decode): offset 3: unexpected end"}},
	}
	for _, tt := range tests {
		got := describe("x.json", tt.done)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tt.name, got, w)
			}
		}
		if strings.Contains(got, "\n") {
			t.Errorf("%s: %q spans lines", tt.name, got)
		}
	}
}

func TestReaderErrorLoggerLevels(t *testing.T) {
	tests := []struct {
		msg     string
		closing bool
		level   string
	}{
		{"the kafka reader got an unknown error reading partition 2 of jobs at offset 0: read tcp 127.0.0.1:1->127.0.0.1:2: i/o timeout", false, "DEBUG"},
		{"failed to dial: connection refused", false, "WARN"},
		{"failed to dial: connection refused", true, "DEBUG"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		var closing atomic.Bool
		closing.Store(tt.closing)
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		readerErrorLogger(log, &closing).Printf("%s", tt.msg)
		if !strings.Contains(buf.String(), "level="+tt.level) {
			t.Errorf("%q (closing %v) logged %q, want level %s", tt.msg, tt.closing, buf.String(), tt.level)
		}
	}
}

// embeddedOnly hides the brokers of the environment (scripts/test.sh exports
// HYGIENE_KAFKA_BROKERS for the integration suite) so that the worker starts
// its embedded broker, as it does on a machine with no configuration.
func embeddedOnly(t *testing.T) {
	t.Helper()
	t.Setenv("HYGIENE_KAFKA_BROKERS", "")
	os.Unsetenv("HYGIENE_KAFKA_BROKERS")
}

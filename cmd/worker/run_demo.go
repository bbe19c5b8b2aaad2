package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// headerDemo marks the records `worker run --produce` wrote: "nonce/file".
// The nonce tells this run's jobs from older ones on a persistent cluster.
const headerDemo = "hygiene-demo"

// demo is `worker run --produce DIR`: the example jobs of DIR produced to
// the jobs topic, and a line printed for each one's outcome.
type demo struct {
	files []demoJob
	nonce string

	mu   sync.Mutex
	done map[string]bool
}

type demoJob struct {
	name       string
	key, value []byte
}

// loadDemo reads DIR/*.json. A job's key is "tenant/session_id" from its
// JSON; a file that does not parse as a job keeps the key "demo/FILE" (it
// will be a dead letter, which the demo shows too).
func loadDemo(dir string) (*demo, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("--produce %s: the directory holds no *.json job", dir)
	}
	slices.Sort(paths)
	d := &demo{nonce: strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36), done: map[string]bool{}}
	for _, p := range paths {
		value, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(p)
		key := "demo/" + name
		var head struct {
			Tenant    string `json:"tenant"`
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(value, &head) == nil && head.Tenant != "" {
			key = head.Tenant + "/" + head.SessionID
		}
		d.files = append(d.files, demoJob{name: name, key: []byte(key), value: value})
	}
	return d, nil
}

// produce writes every demo job to the jobs topic.
func (d *demo) produce(ctx context.Context, kcfg kafka.Config, kc config.KafkaConfig) error {
	sink, err := kafka.NewSink(kafka.SinkConfig{Config: kcfg, Topic: kc.JobsTopic, MaxMessageBytes: int(kc.MaxMessageBytes), CompressAbove: -1})
	if err != nil {
		return err
	}
	recs := make([]transport.Record, len(d.files))
	for i, f := range d.files {
		recs[i] = transport.Record{Key: f.key, Value: f.value,
			Headers: []transport.Header{{Key: headerDemo, Value: []byte(d.nonce + "/" + f.name)}}}
	}
	writeErr := sink.Write(ctx, recs...)
	if err := sink.Close(ctx); writeErr == nil {
		writeErr = err
	}
	if writeErr != nil {
		return fmt.Errorf("producing the demo jobs to %s: %w", kc.JobsTopic, writeErr)
	}
	return nil
}

// observer returns the runner's OnDone: one line per demo job, and finished
// called once every demo job is done. Redeliveries print nothing new.
func (d *demo) observer(w io.Writer, finished func()) func(pipeline.Done) {
	return func(done pipeline.Done) {
		tag, ok := done.Record.Header(headerDemo)
		nonce, name, _ := strings.Cut(string(tag), "/")
		if !ok || nonce != d.nonce {
			return
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.done[name] {
			return
		}
		d.done[name] = true
		fmt.Fprintln(w, describe(name, done))
		if len(d.done) == len(d.files) {
			finished()
		}
	}
}

// describe is the demo line of one outcome: file, job id, outcome, bytes,
// and what changed (or the dead-letter code and sentence).
func describe(name string, done pipeline.Done) string {
	out := done.Outcome
	job := out.JobID
	if job == "" {
		job = "-"
	}
	if !out.Ready {
		return fmt.Sprintf("%-34s job=%-28s dead_letter  %s (stage %s): %s", name, job, out.Code, out.Stage, firstLine(out.Error))
	}
	line := fmt.Sprintf("%-34s job=%-28s ready  %d -> %d bytes", name, job, len(done.Record.Value), done.Written)
	if out.Report == nil || !out.Report.Changed {
		return line + "  unchanged"
	}
	var changes []string
	for _, c := range out.Report.Stages.List() {
		changes = append(changes, fmt.Sprintf("%s.%s=%d", c.Stage, c.What, c.N))
	}
	if pr := out.Report.Pruning; pr.SoftTrimmed+pr.HardCleared > 0 {
		changes = append(changes, fmt.Sprintf("pruning.soft_trimmed=%d pruning.hard_cleared=%d", pr.SoftTrimmed, pr.HardCleared))
	}
	slices.Sort(changes)
	return line + "  changed: " + strings.Join(changes, " ")
}

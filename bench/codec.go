package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// codecRun is one codec's decode and re-encode of an unchanged job.
type codecRun struct {
	Codec        string  `json:"codec"`
	JobBytes     int     `json:"job_bytes"`
	Messages     int     `json:"messages"`
	Iterations   int     `json:"iterations"`
	MsPerOp      float64 `json:"ms_per_op"`
	CPUMsPerOp   float64 `json:"cpu_ms_per_op"`
	MBPerSec     float64 `json:"mb_per_sec"`
	AllocMBPerOp float64 `json:"alloc_mb_per_op"`
}

// stdJob is the plain encoding/json model of a job: what an implementation
// without the minimal-copy codec decodes into and encodes from.
type stdJob struct {
	JobID         string            `json:"job_id"`
	Tenant        string            `json:"tenant"`
	SessionID     string            `json:"session_id"`
	Target        map[string]string `json:"target"`
	Options       map[string]any    `json:"options,omitempty"`
	CustomEntries []map[string]any  `json:"custom_entries,omitempty"`
	Messages      []map[string]any  `json:"messages"`
}

// codecSuite decodes and re-encodes one generated job of about o.codecMB
// megabytes with package transcript and with encoding/json.
func codecSuite(ctx context.Context, o options, log io.Writer) ([]codecRun, error) {
	job, msgs := sizedJob(o, o.codecMB<<20)
	ways := []struct {
		name string
		op   func() error
	}{
		{"transcript", func() error {
			t, err := transcript.DecodeJob(job, transcript.Limits{})
			if err != nil {
				return err
			}
			_ = t.EncodePayload(nil, nil)
			return nil
		}},
		{"encoding/json", func() error {
			var j stdJob
			if err := json.Unmarshal(job, &j); err != nil {
				return err
			}
			_, err := json.Marshal(&j)
			return err
		}},
	}
	var out []codecRun
	for _, w := range ways {
		r, err := timeOp(ctx, o.duration/4, 50, w.op)
		if err != nil {
			return out, fmt.Errorf("codec %s: %w", w.name, err)
		}
		r.Codec, r.JobBytes, r.Messages = w.name, len(job), msgs
		r.MBPerSec = float64(len(job)) / 1e6 / (r.MsPerOp / 1000)
		fmt.Fprintf(log, "  codec %s: %.1f MB job, %.1f ms/op, %.0f MB/s\n", w.name, float64(len(job))/1e6, r.MsPerOp, r.MBPerSec)
		out = append(out, r)
	}
	return out, nil
}

// sizedJob generates a job of about size bytes (the load runs' mix with
// more messages) and returns it with its message count.
func sizedJob(o options, size int) ([]byte, int) {
	cfg := generatorConfig(o)
	cfg.Messages = 1000
	_, probe := sessiongen.New(cfg).Job(0)
	cfg.Messages = max(10, int(float64(size)/float64(len(probe))*1000))
	_, job := sessiongen.New(cfg).Job(0)
	return job, cfg.Messages
}

// timeOp runs op at least once and then until budget or maxIter, and
// reports wall time, CPU time and allocations per operation.
func timeOp(ctx context.Context, budget time.Duration, maxIter int, op func() error) (codecRun, error) {
	var alloc0 = totalAlloc()
	cpu0, start := selfCPU(), time.Now()
	n := 0
	for n == 0 || (n < maxIter && time.Since(start) < budget && ctx.Err() == nil) {
		if err := op(); err != nil {
			return codecRun{}, err
		}
		n++
	}
	elapsed, cpu := time.Since(start), selfCPU()-cpu0
	return codecRun{
		Iterations: n, MsPerOp: ms(elapsed) / float64(n), CPUMsPerOp: ms(cpu) / float64(n),
		AllocMBPerOp: float64(totalAlloc()-alloc0) / 1e6 / float64(n),
	}, nil
}

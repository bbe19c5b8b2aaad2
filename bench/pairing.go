package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/pairing"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// pairingRun is the tool-result pairing rule over one long damaged
// history, and the decode before it. CPU times are the calling thread's,
// so they stay meaningful on a loaded machine.
type pairingRun struct {
	Messages           int     `json:"messages"`
	JobMB              float64 `json:"job_mb"`
	DecodeMs           float64 `json:"decode_ms"`
	DecodeCPUMs        float64 `json:"decode_cpu_ms"`
	PairingMs          float64 `json:"pairing_ms"`
	PairingCPUMs       float64 `json:"pairing_cpu_ms"`
	PairingCPUNsPerMsg float64 `json:"pairing_cpu_ns_per_message"`
}

// pairingSuite decodes one generated job of each length in o.pairing
// (realistic damage, short texts, no images) and runs the pairing rule on
// it, cold: the rule parses every message it reads, as the first rule to
// touch them would.
func pairingSuite(ctx context.Context, o options, log io.Writer) ([]pairingRun, error) {
	cfg := config.Default()
	lim := transcript.Limits{MaxBytes: 4 << 30, MaxMessages: 2_000_000, MaxDepth: cfg.Limits.MaxDepth}
	rule := pairing.ToolResultPairing()
	var out []pairingRun
	for _, n := range o.pairing {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		gcfg := generatorConfig(o)
		gcfg.Messages, gcfg.Images, gcfg.TextChars, gcfg.ToolResultChars = n, 0, 60, 120
		_, job := sessiongen.New(gcfg).Job(0)
		runtime.GC()
		r := pairingRun{Messages: n, JobMB: float64(len(job)) / 1e6}
		var t *transcript.Transcript
		var err error
		wall, cpu := onThread(func() { t, err = transcript.DecodeJob(job, lim) })
		if err != nil {
			return out, fmt.Errorf("decoding the %d-message job: %w", n, err)
		}
		r.DecodeMs, r.DecodeCPUMs = ms(wall), ms(cpu)
		resolved, err := pipeline.ResolverFor(cfg)(t)
		if err != nil {
			return out, fmt.Errorf("resolving the %d-message job's settings: %w", n, err)
		}
		env := &stage.Env{Policy: policy.Resolve(t.Target), Settings: resolved, Report: stage.NewReport()}
		runtime.GC()
		wall, cpu = onThread(func() { err = rule.Apply(ctx, t, env) })
		if err != nil {
			return out, fmt.Errorf("pairing the %d-message job: %w", n, err)
		}
		r.PairingMs, r.PairingCPUMs, r.PairingCPUNsPerMsg = ms(wall), ms(cpu), float64(cpu)/float64(n)
		fmt.Fprintf(log, "  pairing: %d messages (%.0f MB): decode %.0f ms (CPU %.0f), pairing %.0f ms (CPU %.0f ms, %.0f ns/message)\n",
			n, r.JobMB, r.DecodeMs, r.DecodeCPUMs, r.PairingMs, r.PairingCPUMs, r.PairingCPUNsPerMsg)
		out = append(out, r)
	}
	return out, nil
}

// onThread runs f on a locked OS thread and returns its wall time and the
// thread's CPU time (user and system).
func onThread(f func()) (wall, cpu time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, t0 := threadCPU(), time.Now()
	f()
	return time.Since(t0), threadCPU() - c0
}

// threadCPU is the CPU time of the calling OS thread.
func threadCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package media

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// cpuTime returns the CPU time the process has used, every thread (libvips
// included). On a shared, loaded machine CPU per operation is steadier than
// wall time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// runStage parses messagesJSON (off the clock, but inside the CPU figure)
// and applies st to it.
func runStage(b *testing.B, messagesJSON []byte, target transcript.Target, settings stage.Settings, st stage.Stage) *stage.Report {
	b.StopTimer()
	t, err := transcript.FromMessages(messagesJSON, transcript.Target(target))
	if err != nil {
		b.Fatal(err)
	}
	env := &stage.Env{Policy: policy.Resolve(target), Settings: settings, Report: stage.NewReport()}
	b.StartTimer()
	if err := st.Apply(context.Background(), t, env); err != nil {
		b.Fatal(err)
	}
	return env.Report
}

// BenchmarkImagesTenJPEGs runs the images stage over one job carrying ten
// different 2000x1500 JPEGs (each resized to 1200x900), with the processor's pool at
// one and two workers and its result cache off, and at two workers with the
// cache on and filled before the clock starts (the same job again: every
// image a cache hit).
func BenchmarkImagesTenJPEGs(b *testing.B) {
	var turns []string
	var inBytes int
	for i := range 10 {
		data := b64(largeVariant(b, 2000, 1500, "jpeg", i))
		inBytes += len(data)
		turns = append(turns, `{"role":"user","content":[{"type":"text","text":"photo `+fmt.Sprint(i)+`"},{"type":"image","data":"`+data+`","mimeType":"image/jpeg"}]}`,
			`{"role":"assistant","content":[{"type":"text","text":"seen"}],"stopReason":"stop"}`)
	}
	job := []byte("[" + strings.Join(turns, ",") + "]")
	for _, bc := range []struct {
		name    string
		workers int
		cache   int64
	}{{"workers=1", 1, -1}, {"workers=2", 2, -1}, {"workers=2/cache", 2, 0}} {
		b.Run(bc.name, func(b *testing.B) {
			p, err := images.NewProcessor(images.Config{Workers: bc.workers, CacheBytes: bc.cache})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			st := Images(p)
			if bc.cache >= 0 {
				runStage(b, job, stagetest.Anthropic, imageSettings(), st) // fill the cache
			}
			b.SetBytes(int64(inBytes))
			b.ReportAllocs()
			var r *stage.Report
			start := cpuTime(b)
			for b.Loop() {
				r = runStage(b, job, stagetest.Anthropic, imageSettings(), st)
			}
			reportCPU(b, start)
			if r.Images.Resized != 10 {
				b.Fatalf("resized %d images, want 10", r.Images.Resized)
			}
			b.ReportMetric(float64(r.Images.BytesOut)/float64(r.Images.BytesIn), "out/in")
		})
	}
}

// pruningHistory builds a history of about size bytes: turns of a user
// message, a tool call, a 10,000-char tool result (a fifth of them CJK) and
// a text reply.
func pruningHistory(size int) []byte {
	latin := strings.Repeat("log line 0123456789 abcdefghij\n", 10_000/31+1)[:10_000]
	cjk := strings.Repeat("日志行 한국어 ", 1_000)
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; b.Len() < size; i++ {
		out := latin
		if i%5 == 0 {
			out = cjk
		}
		id := fmt.Sprintf("call_%d", i)
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(u(fmt.Sprintf("step %d", i)) + "," +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"plan","thinkingSignature":"EqQBCkYIBxgC"},{"type":"toolCall","id":"` + id + `","name":"exec","arguments":{"command":"make test","timeout":120.0}}],"stopReason":"toolUse"},` +
			result(id, "exec", out) + "," + a("done"))
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// BenchmarkPruning10MB runs the pruning stage over a 10 MB history: with a
// 200k-token window (every old result soft-trimmed, then cleared oldest
// first) and with a window so large that only the estimate runs.
func BenchmarkPruning10MB(b *testing.B) {
	history := pruningHistory(10 << 20)
	for _, bc := range []struct {
		name   string
		window int
		ran    bool
	}{{"prune", 200_000, true}, {"estimate-only", 100_000_000, false}} {
		b.Run(bc.name, func(b *testing.B) {
			s := pruneSettings(bc.window)
			b.SetBytes(int64(len(history)))
			b.ReportAllocs()
			var r *stage.Report
			start := cpuTime(b)
			for b.Loop() {
				r = runStage(b, history, stagetest.Anthropic, s, Pruning())
			}
			reportCPU(b, start)
			if r.Pruning.Ran != bc.ran {
				b.Fatalf("pruning ran = %v, want %v", r.Pruning.Ran, bc.ran)
			}
			b.ReportMetric(float64(r.Pruning.SoftTrimmed), "trimmed")
			b.ReportMetric(float64(r.Pruning.HardCleared), "cleared")
		})
	}
}

// BenchmarkStaleMedia10MB runs the stale-media stage over the same 10 MB
// history with a media reference in every user message.
func BenchmarkStaleMedia10MB(b *testing.B) {
	history := []byte(strings.ReplaceAll(string(pruningHistory(10<<20)), `"step `, `"[media attached: /tmp/in.png] step `))
	b.SetBytes(int64(len(history)))
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		runStage(b, history, stagetest.Anthropic, stage.Settings{}, StaleMedia())
	}
	reportCPU(b, start)
}

package stages

import (
	"context"
	"runtime"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// BenchmarkDefaultChain runs decode, the whole default chain (stage.Run:
// the rules whose inputs the job lacks skipped, as the pipeline does) and
// encode over a text-only history of about 10 MB for an Anthropic target,
// with the realistic damage mix (most messages untouched), and with none.
// The "-released" runs end each job as the worker ends it: its tapes go
// back to the pool (pipeline.Processor.Process; a 10 MB job's tapes are
// under jsontape.MaxPooledBytes), so the next decode records on arrays it
// does not allocate and clear. The payload is a new buffer in both, as the
// worker's is for a job this large.
func BenchmarkDefaultChain(b *testing.B) {
	for _, c := range chainHistories() {
		history := c.data
		b.Run(c.name, func(b *testing.B) { benchDefaultChain(b, history, false) })
		b.Run(c.name+"-released", func(b *testing.B) { benchDefaultChain(b, history, true) })
	}
}

// benchDefaultChain is one run of BenchmarkDefaultChain over history, each job's
// tapes released when release is set.
func benchDefaultChain(b *testing.B, history []byte, release bool) {
	b.SetBytes(int64(len(history)))
	b.ReportAllocs()
	chain := Default(imgs)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	messages := 0
	for b.Loop() {
		tr, err := transcript.FromMessages(history, transcript.Target(chainTarget))
		if err != nil {
			b.Fatal(err)
		}
		messages += len(tr.Messages)
		env := &stage.Env{Policy: policy.Resolve(chainTarget), Report: stage.NewReport()}
		if err := stage.Run(context.Background(), chain, tr, env); err != nil {
			b.Fatal(err)
		}
		_ = tr.MessagesJSON()
		if release {
			tr.Release()
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(messages), "allocs/msg")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(messages), "B/msg")
}

// chainTarget is the target of BenchmarkDefaultChain's histories.
var chainTarget = transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}

// chainHistory is one of BenchmarkDefaultChain's histories, by name.
type chainHistory struct {
	name string
	data []byte
}

// chainHistories are BenchmarkDefaultChain's histories: text-only, about
// 10 MB, for chainTarget, with the realistic damage mix and with none, and
// the clean one again with every tool result what real tools print (source
// lines, listings, JSON: brackets, quotes, tabs, newlines) instead of prose.
func chainHistories() []chainHistory {
	var out []chainHistory
	for _, c := range []struct {
		name       string
		damage     sessiongen.Damage
		toolOutput float64
	}{{"realistic-damage", sessiongen.Realistic(), 0}, {"clean", sessiongen.Damage{}, 0}, {"tool-output", sessiongen.Damage{}, 1}} {
		out = append(out, chainHistory{c.name, sessiongen.New(sessiongen.Config{Seed: 1, Messages: 6000, ToolCallDensity: 0.6,
			Damage: c.damage, TextChars: 400, ToolResultChars: 2500, Target: chainTarget, ToolOutput: c.toolOutput}).History()})
	}
	return out
}

// BenchmarkFinalStages runs only the stages issue 16 (request_size,
// empty_history, contract) and issue 30 (context_fit) added at the end of
// the chain over the chain's output for BenchmarkDefaultChain's histories:
// their share of the chain's time (without a token budget, as before).
func BenchmarkFinalStages(b *testing.B) {
	tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	chain := Default(imgs)
	final := chain[len(chain)-4:]
	for _, c := range []struct {
		name   string
		damage sessiongen.Damage
	}{{"realistic-damage", sessiongen.Realistic()}, {"clean", sessiongen.Damage{}}} {
		history := sessiongen.New(sessiongen.Config{Seed: 1, Messages: 6000, ToolCallDensity: 0.6, Damage: c.damage,
			TextChars: 400, ToolResultChars: 2500, Target: tg}).History()
		tr, err := transcript.FromMessages(history, transcript.Target(tg))
		if err != nil {
			b.Fatal(err)
		}
		env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport(), InputMessages: len(tr.Messages)}
		for _, s := range chain[:len(chain)-4] {
			if err := s.Apply(context.Background(), tr, env); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(history)))
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range final {
					if err := s.Apply(context.Background(), tr, env); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkDefaultChainHeap measures the live heap of one job of
// BenchmarkDefaultChain's realistic history: after decoding, after each
// stage and after encoding it collects garbage and reads the heap in use,
// and reports the largest over the input's size (the input's own bytes
// included, as the pipeline holds them). Transients inside a stage are not
// seen, so this is a floor of the peak; bench --suite large reports the
// worker's peak RSS, a ceiling.
func BenchmarkDefaultChainHeap(b *testing.B) {
	tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	history := sessiongen.New(sessiongen.Config{Seed: 1, Messages: 6000, ToolCallDensity: 0.6, Damage: sessiongen.Realistic(),
		TextChars: 400, ToolResultChars: 2500, Target: tg}).History()
	chain := Default(imgs)
	var ms runtime.MemStats
	liveHeap := func() uint64 { runtime.GC(); runtime.ReadMemStats(&ms); return ms.HeapAlloc }
	peak := uint64(0)
	for b.Loop() {
		input := append([]byte(nil), history...)
		base := liveHeap() - uint64(len(input)) // what the benchmark itself holds
		tr, err := transcript.FromMessages(input, transcript.Target(tg))
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, liveHeap()-base)
		env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport()}
		var skip stage.Skipper
		for _, s := range chain {
			if skip.Skip(&s, tr, env) {
				continue
			}
			if err := s.Apply(context.Background(), tr, env); err != nil {
				b.Fatal(err)
			}
			peak = max(peak, liveHeap()-base)
		}
		out := tr.MessagesJSON()
		peak = max(peak, liveHeap()-base)
		runtime.KeepAlive(out)
		runtime.KeepAlive(input)
	}
	b.ReportMetric(float64(peak)/float64(len(history)), "peak-live-heap/input")
}

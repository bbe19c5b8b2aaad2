package stages

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// BenchmarkStageShares runs the default chain over a 300k-message history
// of the large suite's kind (realistic heavy damage, short texts, OpenAI
// Chat Completions) and reports each stage's wall time per run
// (ms/<stage>), the decode's and the encode's: how much of a large job
// each part is, so what splitting one of them across cores can save. The
// sub-benchmark fanout gives the chain a pool of GOMAXPROCS-1 helpers at
// the worker's default threshold (20,000 messages), so the rules that split
// run in chunks.
func BenchmarkStageShares(b *testing.B) {
	b.Run("sequential", func(b *testing.B) { benchStageShares(b, nil) })
	b.Run("fanout", func(b *testing.B) { benchStageShares(b, fanout.New(runtime.GOMAXPROCS(0)-1, 20_000)) })
}

// benchStageShares is one run of BenchmarkStageShares, with fan as the
// chain's Fanout (nil: sequential).
func benchStageShares(b *testing.B, fan stage.Fanout) {
	tg := transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}
	data := sessiongen.New(sessiongen.Config{Seed: 1, Messages: 300_000, ToolCallDensity: 0.5, Damage: sessiongen.Heavy(),
		TextChars: 60, ToolResultChars: 120, Target: tg}).History()
	spent := map[string]time.Duration{}
	for b.Loop() {
		start := time.Now()
		tr, err := transcript.FromMessages(data, tg)
		if err != nil {
			b.Fatal(err)
		}
		spent["decode"] += time.Since(start)
		env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport(), InputMessages: len(tr.Messages), Fanout: fan}
		for _, s := range Default(imgs) {
			start := time.Now()
			if err := s.Apply(context.Background(), tr, env); err != nil {
				b.Fatalf("stage %s: %v", s.Name, err)
			}
			spent[s.Name] += time.Since(start)
		}
		start = time.Now()
		tr.MessagesJSON()
		spent["encode"] += time.Since(start)
	}
	for name, d := range spent {
		b.ReportMetric(float64(d.Milliseconds())/float64(b.N), "ms/"+name)
	}
}

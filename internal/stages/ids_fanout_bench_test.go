package stages

import (
	"context"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/toolcalls"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// BenchmarkIDPassesCores compares one core with two for the id passes
// (tool_call_ids_early then tool_call_ids) and for the whole default chain,
// over a history of 100,000 messages (realistic damage, ids of real
// lengths): "1" runs without a Fanout, "2" with a pool of one helper at the
// worker's default threshold (20,000 messages), so the job's goroutine and
// the helper split the work. Each iteration runs both, one after the other,
// so that they share the machine's load; it reports each one's wall time
// (ms/1, ms/2) and their ratio (2/1). The decode is outside the timing, and
// so is the chain's encode.
func BenchmarkIDPassesCores(b *testing.B) {
	ids := []stage.Stage{toolcalls.ToolCallIDsInImagePass(), toolcalls.ToolCallIDs()}
	for _, c := range []struct {
		name   string
		stages []stage.Stage
		t      transcript.Target
	}{
		{"ids/openai-completions", ids, transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}},
		{"ids/anthropic", ids, transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}},
		{"ids/mistral", ids, transcript.Target{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"}},
		{"chain/openai-completions", Default(imgs), transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}},
		{"chain/anthropic", Default(imgs), transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}},
	} {
		data := sessiongen.New(sessiongen.Config{Seed: 1, Messages: 100_000, ToolCallDensity: 0.6, Damage: sessiongen.Realistic(),
			TextChars: 40, ToolResultChars: 60, Target: c.t, RealLengthIDs: true}).History()
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			two := fanout.New(1, 20_000)
			var one, both time.Duration
			for b.Loop() {
				one += runStagesTimed(b, c.t, data, c.stages, nil)
				both += runStagesTimed(b, c.t, data, c.stages, two)
			}
			b.ReportMetric(float64(one.Milliseconds())/float64(b.N), "ms/1")
			b.ReportMetric(float64(both.Milliseconds())/float64(b.N), "ms/2")
			b.ReportMetric(float64(both)/float64(one), "2/1")
		})
	}
}

// runStagesTimed decodes data, then applies stages with fan as the Fanout
// and returns the time the stages took.
func runStagesTimed(b *testing.B, tg transcript.Target, data []byte, stages []stage.Stage, fan stage.Fanout) time.Duration {
	tr, err := transcript.FromMessages(data, tg)
	if err != nil {
		b.Fatal(err)
	}
	env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport(), InputMessages: len(tr.Messages), Fanout: fan}
	start := time.Now()
	for _, s := range stages {
		if err := s.Apply(context.Background(), tr, env); err != nil {
			b.Fatalf("stage %s: %v", s.Name, err)
		}
	}
	return time.Since(start)
}

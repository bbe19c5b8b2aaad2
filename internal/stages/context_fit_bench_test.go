package stages

import (
	"context"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// BenchmarkContextFit is issue 30's cost of counting and fitting, beside
// the chain in the same run: each history is decoded and run through the
// whole default chain without a token budget ("chain", today's work) and
// with its target's budget ("chain+fit": the model's window and default
// output, the bound, the count, the fit and the contract's count), for
// Claude Sonnet 4.5 (200k tokens, 32k reserved). "count" is one exact
// count of the decoded input (contract.Budget.Count), the price of
// counting alone. The histories:
//
//   - small: a realistic 6-turn session, which the cheap bound proves fits;
//   - fits-bound: a realistic 60-turn session (336 kB, 23k tokens), which
//     the bound proves fits (its bound, 73k, is within the room);
//   - fits-counted: a realistic 250-turn session (1.4 MB, about 95k
//     tokens), whose bound is over the room, so it is counted, and fits;
//   - 100k: sessiongen's 100,000-message history of BenchmarkIDsFanout
//     (realistic damage, real id lengths, short texts), fitted down to the
//     window.
//
// The fit's share is fit-ms/chain-ms, reported per history.
func BenchmarkContextFit(b *testing.B) {
	tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-sonnet-4-5"}
	for _, c := range []struct {
		name    string
		history []byte
	}{
		{"small", sessiongen.RealShapes(sessiongen.RealConfig{Seed: 1, Target: tg, Turns: 6}).History()},
		{"fits-bound", sessiongen.RealShapes(sessiongen.RealConfig{Seed: 1, Target: tg, Turns: 60}).History()},
		{"fits-counted", sessiongen.RealShapes(sessiongen.RealConfig{Seed: 1, Target: tg, Turns: 250}).History()},
		{"100k", sessiongen.New(sessiongen.Config{Seed: 1, Messages: 100_000, ToolCallDensity: 0.6, Damage: sessiongen.Realistic(),
			TextChars: 40, ToolResultChars: 60, Target: tg, RealLengthIDs: true}).History()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.history)))
			warm, err := transcript.FromMessages(c.history, tg)
			if err != nil {
				b.Fatal(err)
			}
			// the counter's vocabulary loads once per process, not per job
			stage.BudgetFor(tg, stage.Settings{}, nil).Count(warm.Messages[:1], nil, nil)
			var chain, fit, count time.Duration
			var rep *stage.ContextFitReport
			for b.Loop() {
				chain += benchChain(b, tg, c.history, false, nil)
				fit += benchChain(b, tg, c.history, true, &rep)
				tr, err := transcript.FromMessages(c.history, tg)
				if err != nil {
					b.Fatal(err)
				}
				budget := stage.BudgetFor(tg, stage.Settings{}, nil)
				start := time.Now()
				_ = budget.Count(tr.Messages, nil, nil)
				count += time.Since(start)
			}
			n := float64(b.N)
			b.ReportMetric(float64(chain.Microseconds())/1000/n, "chain-ms")
			b.ReportMetric(float64(fit.Microseconds())/1000/n, "chain+fit-ms")
			b.ReportMetric(float64(count.Microseconds())/1000/n, "count-ms")
			b.ReportMetric(100*(float64(fit)-float64(chain))/float64(chain), "fit-%")
			if rep != nil {
				b.ReportMetric(float64(rep.TokensBefore), "tokens-before")
				b.ReportMetric(float64(rep.TokensAfter), "tokens-after")
			}
		})
	}
}

// benchChain decodes history and runs the default chain over it for tg,
// with the target's token budget when budget (the report's context_fit
// into rep), and returns the time from the decode to the last rule.
func benchChain(b *testing.B, tg transcript.Target, history []byte, budget bool, rep **stage.ContextFitReport) time.Duration {
	start := time.Now()
	tr, err := transcript.FromMessages(history, tg)
	if err != nil {
		b.Fatal(err)
	}
	env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport(), InputMessages: len(tr.Messages),
		Settings: stage.Settings{Context: settings.Context{Fit: settings.FitTrim}}}
	if budget {
		env.Budget = stage.BudgetFor(tg, env.Settings, nil)
	}
	for _, s := range Default(imgs) {
		if err := s.Apply(context.Background(), tr, env); err != nil {
			b.Fatalf("%s: %v", s.Name, err)
		}
	}
	d := time.Since(start)
	if rep != nil {
		*rep = env.Report.ContextFit
	}
	return d
}

package stages

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/tokens"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// BenchmarkCount is issue 30's measure of what counting tokens costs beside
// the chain (bench/README.md: at most 5% of the chain on a history that
// fits, 25% on one that needs counting), in CPU time, which a shared
// machine does not inflate: for the large suite's 100,000-message history
// and for a small 10-message job, to an OpenAI target (o200k_base, exact)
// and a Claude one (the bound):
//
//   - chain: decode, the default chain and encode, as BenchmarkDefaultChain,
//     for the OpenAI target (the 100k history is over Anthropic's 32 MB
//     request cap, so its Claude chain would stop at request_size; the
//     large suite uses the same target for the same reason);
//   - bound: MessageBound over every message, the check that proves a
//     history fits without counting;
//   - window: Message from the newest message back until the count is over
//     the model's input budget, what fitting has to count;
//   - all: Message over every message.
//
// The counting rows run over a decoded transcript (the chain has decoded
// it already).
func BenchmarkCount(b *testing.B) {
	for _, h := range []struct {
		name string
		cfg  sessiongen.Config
	}{
		{"history-100k", sessiongen.Config{Seed: 1, Messages: 100_000, ToolCallDensity: 0.6, TextChars: 60,
			ToolResultChars: 120, RealLengthIDs: true}},
		{"small", sessiongen.Config{Seed: 1, Messages: 10, Damage: sessiongen.Realistic()}},
	} {
		for _, tg := range []transcript.Target{
			{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
			{Provider: "anthropic", API: "anthropic-messages", Model: "claude-sonnet-4-5"},
		} {
			cfg := h.cfg
			cfg.Target = tg
			history := sessiongen.New(cfg).History()
			tr, err := transcript.FromMessages(history, tg)
			if err != nil {
				b.Fatal(err)
			}
			c := tokens.For(tg.Provider, tg.API, tg.Model)
			c.Text([]byte("load the vocabulary off the clock"))
			limits := contract.Model(tg.Provider, tg.API, tg.Model)
			budget := limits.InputBudget(limits.DefaultOutput)
			prefix := h.name + "/" + tg.Model + "/"
			b.Run(prefix+"chain", func(b *testing.B) {
				if tg.Provider != "openai" {
					b.Skip("the chain row is the OpenAI target's")
				}
				b.SetBytes(int64(len(history)))
				start := cpuNow()
				for b.Loop() {
					tr, err := transcript.FromMessages(history, tg)
					if err != nil {
						b.Fatal(err)
					}
					env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport()}
					for _, s := range Default(imgs) {
						if err := s.Apply(context.Background(), tr, env); err != nil {
							b.Fatal(err)
						}
					}
					_ = tr.MessagesJSON()
				}
				reportCPU(b, start)
			})
			b.Run(prefix+"bound", func(b *testing.B) { sumMessages(b, tr.Messages, c.MessageBound) })
			b.Run(prefix+"window", func(b *testing.B) {
				start := cpuNow()
				n, kept := 0, 0
				for b.Loop() {
					n, kept = 0, 0
					for i := len(tr.Messages) - 1; i >= 0 && n <= budget; i-- {
						n += c.Message(tr.Messages[i])
						kept++
					}
				}
				reportCPU(b, start)
				b.ReportMetric(float64(kept), "messages")
			})
			b.Run(prefix+"all", func(b *testing.B) { sumMessages(b, tr.Messages, c.Message) })
		}
	}
}

// sumMessages is a counting row: count over every message.
func sumMessages(b *testing.B, msgs []*transcript.Message, count func(*transcript.Message) int) {
	start := cpuNow()
	n := 0
	for b.Loop() {
		n = 0
		for _, m := range msgs {
			n += count(m)
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(n), "tokens")
}

// cpuNow is the process's CPU time, user and system.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuNow()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

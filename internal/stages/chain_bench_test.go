package stages

import (
	"context"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// BenchmarkDefaultChain runs decode, the whole default chain and encode over
// a text-only history of about 10 MB for an Anthropic target, with the
// realistic damage mix (most messages untouched), and with none.
func BenchmarkDefaultChain(b *testing.B) {
	tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	for _, c := range []struct {
		name   string
		damage sessiongen.Damage
	}{{"realistic-damage", sessiongen.Realistic()}, {"clean", sessiongen.Damage{}}} {
		history := sessiongen.New(sessiongen.Config{Seed: 1, Messages: 6000, ToolCallDensity: 0.6, Damage: c.damage,
			TextChars: 400, ToolResultChars: 2500, Target: transcript.Target(tg)}).History()
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(history)))
			b.ReportAllocs()
			chain := Default(imgs)
			for b.Loop() {
				tr, err := transcript.FromMessages(history, transcript.Target(tg))
				if err != nil {
					b.Fatal(err)
				}
				env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport()}
				for _, s := range chain {
					if err := s.Apply(context.Background(), tr, env); err != nil {
						b.Fatal(err)
					}
				}
				_ = tr.MessagesJSON()
			}
		})
	}
}

// BenchmarkFinalStages runs only the stages issue 16 added at the end of the
// chain (request_size, empty_history, contract) over the chain's output for
// BenchmarkDefaultChain's histories: their share of the chain's time.
func BenchmarkFinalStages(b *testing.B) {
	tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	chain := Default(imgs)
	final := chain[len(chain)-3:]
	for _, c := range []struct {
		name   string
		damage sessiongen.Damage
	}{{"realistic-damage", sessiongen.Realistic()}, {"clean", sessiongen.Damage{}}} {
		history := sessiongen.New(sessiongen.Config{Seed: 1, Messages: 6000, ToolCallDensity: 0.6, Damage: c.damage,
			TextChars: 400, ToolResultChars: 2500, Target: transcript.Target(tg)}).History()
		tr, err := transcript.FromMessages(history, transcript.Target(tg))
		if err != nil {
			b.Fatal(err)
		}
		env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport(), InputMessages: len(tr.Messages)}
		for _, s := range chain[:len(chain)-3] {
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

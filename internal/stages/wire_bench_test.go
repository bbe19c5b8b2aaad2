package stages

import (
	"context"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// BenchmarkChainRender is BenchmarkDefaultChain's job (the same ~10 MB
// realistic-damage history, decode + every stage + encode) for three
// targets, without ("messages") and with ("request") the provider request
// body rendered after the chain, as the job option render: request does.
func BenchmarkChainRender(b *testing.B) {
	for _, tg := range []transcript.Target{
		{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"},
		{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
		{Provider: "google", API: "google-generative-ai", Model: "gemini-3-pro-preview"},
	} {
		history := sessiongen.New(sessiongen.Config{Seed: 1, Messages: 6000, ToolCallDensity: 0.6, Damage: sessiongen.Realistic(),
			TextChars: 400, ToolResultChars: 2500, Target: transcript.Target(tg)}).History()
		p := policy.Resolve(tg)
		for _, render := range []bool{false, true} {
			name := string(wire.FormatFor(p)) + "/messages"
			if render {
				name = string(wire.FormatFor(p)) + "/request"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(history)))
				b.ReportAllocs()
				chain := Default(imgs)
				for b.Loop() {
					tr, err := transcript.FromMessages(history, transcript.Target(tg))
					if err != nil {
						b.Fatal(err)
					}
					env := &stage.Env{Policy: p, Report: stage.NewReport()}
					for _, s := range chain {
						if err := s.Apply(context.Background(), tr, env); err != nil {
							b.Fatal(err)
						}
					}
					if render {
						_ = wire.Render(nil, wire.FormatFor(p), p, tr.Messages, wire.Request{})
					}
					_ = tr.MessagesJSON()
				}
			})
		}
	}
}

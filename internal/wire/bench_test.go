package wire

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// BenchmarkRender renders BenchmarkDefaultChain's ~10 MB history (decoded
// once; every message's content parsed by the first render, as after the
// chain) in every format: the cost render: request adds to a job.
func BenchmarkRender(b *testing.B) {
	tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "gemini-3-pro-preview"}
	history := sessiongen.New(sessiongen.Config{Seed: 1, Messages: 6000, ToolCallDensity: 0.6, Damage: sessiongen.Realistic(),
		TextChars: 400, ToolResultChars: 2500, Target: transcript.Target(tg)}).History()
	tr, err := transcript.FromMessages(history, transcript.Target(tg))
	if err != nil {
		b.Fatal(err)
	}
	p := policy.Resolve(tg)
	for _, f := range Formats {
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(int64(len(history)))
			b.ReportAllocs()
			var dst []byte
			for b.Loop() {
				dst = Render(dst[:0], f, p, tr.Messages, Request{})
			}
		})
	}
}

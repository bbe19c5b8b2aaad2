package wire

import (
	"testing"
	"time"

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

// BenchmarkParse parses BenchmarkRender's ~10 MB history, rendered once in
// each format, back into messages and renders it again in the same format:
// what a request job costs beyond the chain (compare BenchmarkDefaultChain
// in internal/stages). ns/op is parse + render; parse-ms and render-ms
// split it. The decode of the parsed messages is the one every job pays
// (the chain benchmark includes it), so it is not timed in ns/op; it is
// reported as decode-ms.
func BenchmarkParse(b *testing.B) {
	tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	history := sessiongen.New(sessiongen.Config{Seed: 1, Messages: 6000, ToolCallDensity: 0.6, Damage: sessiongen.Realistic(),
		TextChars: 400, ToolResultChars: 2500, Target: tg}).History()
	tr, err := transcript.FromMessages(history, tg)
	if err != nil {
		b.Fatal(err)
	}
	p := policy.Resolve(tg)
	for _, f := range Formats {
		body := Render(nil, f, p, tr.Messages, Request{})
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			var dst []byte
			var parse, decode, render time.Duration
			for b.Loop() {
				start := time.Now()
				parsed, err := Parse(f, body, tg, f)
				if err != nil {
					b.Fatal(err)
				}
				parse += time.Since(start)
				b.StopTimer()
				start = time.Now()
				msgs, err := transcript.FromMessages(parsed.Messages, tg)
				if err != nil {
					b.Fatal(err)
				}
				decode += time.Since(start)
				for _, m := range msgs.Messages {
					m.Blocks() // the chain has parsed every message's content
				}
				b.StartTimer()
				start = time.Now()
				dst = Render(dst[:0], f, p, msgs.Messages, Request{System: parsed.System, Tools: parsed.Tools})
				render += time.Since(start)
			}
			ms := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(b.N) }
			b.ReportMetric(ms(parse), "parse-ms")
			b.ReportMetric(ms(render), "render-ms")
			b.ReportMetric(ms(decode), "decode-ms")
		})
	}
}

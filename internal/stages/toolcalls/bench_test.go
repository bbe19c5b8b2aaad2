package toolcalls

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// benchHistory builds a history of about n messages in cycles of user,
// assistant with two calls, two results; every fifth cycle repeats an
// earlier id, and the ids need rewriting in strict mode.
func benchHistory(n int) []byte {
	var b strings.Builder
	b.Grow(n * 140)
	b.WriteByte('[')
	for i := 0; b.Len() == 1 || i*5 < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		id1 := "call_" + strconv.Itoa(i) + "|fc_" + strconv.Itoa(i)
		id2 := "toolu_01" + strconv.Itoa(i)
		if i%5 == 4 {
			id2 = "toolu_01" + strconv.Itoa(i-1)
		}
		fmt.Fprintf(&b, `{"role":"user","content":"step %d","timestamp":%d},`, i, 1776000000000+i)
		fmt.Fprintf(&b, `{"role":"assistant","content":[{"type":"text","text":"working"},{"type":"toolCall","id":%q,"name":"read","arguments":{"path":"a.go"}},{"type":"toolCall","id":%q,"name":"exec","arguments":{"cmd":"ls"}}],"stopReason":"toolUse","timestamp":%d},`, id1, id2, 1776000000000+i)
		fmt.Fprintf(&b, `{"role":"toolResult","toolCallId":%q,"toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},`, id1)
		fmt.Fprintf(&b, `{"role":"toolResult","toolCallId":%q,"toolName":"exec","content":[{"type":"text","text":"ok"}],"isError":false}`, id2)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// BenchmarkToolCallIDs runs the id rule over 100k and 1M messages for a
// strict target with native ids and signed-turn checks (anthropic), a strict9
// target (mistral) and a limits-only target (openai-responses). Each
// iteration decodes a fresh transcript with the timer stopped; the rule's
// time includes the lazy parse of the members it reads.
func BenchmarkToolCallIDs(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		data := benchHistory(n)
		for _, target := range []transcript.Target{anthropic, mistral, responses} {
			p := policy.Resolve(target)
			b.Run(fmt.Sprintf("%s/%dk", p.Provider, n/1000), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				stg := ToolCallIDs()
				for b.Loop() {
					b.StopTimer()
					tr, err := transcript.FromMessages(data, transcript.Target(target))
					if err != nil {
						b.Fatal(err)
					}
					env := &stage.Env{Policy: p, Report: stage.NewReport()}
					b.StartTimer()
					if err := stg.Apply(context.Background(), tr, env); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(data))/float64(n), "bytes/msg")
			})
		}
	}
}

// BenchmarkKeptIDs compares, on a clean realistic session of 3,000 turns
// for each API that sanitises ids (the generator's session after the id
// pass), the proof that every id is kept (keepsEveryID, what a clean
// history now costs) with the pass's three phases it replaces
// (rewriteIDs), in the same run. Each iteration decodes a fresh transcript
// with the timer stopped.
func BenchmarkKeptIDs(b *testing.B) {
	for _, target := range sessiongen.RealAPIs {
		p := policy.Resolve(target)
		if !p.SanitizeToolCallIDs {
			continue
		}
		in := sessiongen.RealShapes(sessiongen.RealConfig{Seed: 7, Target: target, Turns: 3000}).History()
		data := stagetest.Case{Target: target}.Apply(b, string(in), ToolCallIDs()).JSON
		for _, way := range []string{"proof", "pass"} {
			b.Run(target.API+"/"+way, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					b.StopTimer()
					tr, err := transcript.FromMessages(data, target)
					if err != nil {
						b.Fatal(err)
					}
					env := &stage.Env{Policy: p, Report: stage.NewReport()}
					col := newCollector(env, p.AllowProviderOwnedThinkingReplay())
					b.StartTimer()
					if way == "pass" {
						err = col.rewriteIDs(context.Background(), tr, env, idsStage)
					} else if kept, kerr := col.keepsEveryID(context.Background(), tr.Messages, new(sameRead)); !kept {
						b.Fatalf("not proved kept (%v)", kerr)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

package turns

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestChainKeepsUntouchedBytes checks that messages no rule needs to touch
// come out of the whole chain as their exact input bytes, spacing included.
func TestChainKeepsUntouchedBytes(t *testing.T) {
	user := `{ "role" : "user", "content" : "hi", "timestamp" : 1 }`
	asst := `{"role":"assistant", "content":[ {"type":"thinking","thinking":"t","thinkingSignature":"EqQB"}, {"type":"text","text":"ok"} ],` +
		` "stopReason":"stop", "usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}, "timestamp":2}`
	in := "[" + user + "," + asst + "," + user + "]"
	for _, target := range providerRows {
		got := stagetest.Case{Target: target}.Apply(t, in, chain()...)
		if !bytes.Equal(got.JSON, []byte(in)) {
			t.Errorf("%s: an already clean history changed:\n got: %s\nwant: %s", target, got.JSON, in)
		}
	}
}

// BenchmarkChain runs every stage of the package over long generated
// histories (about 25k and 100k messages) for three kinds of target; the
// ns/op of the two sizes should differ by about their size ratio.
func BenchmarkChain(b *testing.B) {
	for _, histories := range []int{2_500, 10_000} {
		input := longHistory(histories)
		b.Run(fmt.Sprintf("%dk_messages", bytes.Count(input, []byte(`"role":`))/1000), func(b *testing.B) {
			benchChain(b, input)
		})
	}
}

// longHistory concatenates n generated histories into one.
func longHistory(n int) []byte {
	g := &gen{r: rand.New(rand.NewPCG(1, 2))}
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i := range n {
		h := g.history()
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(h[1 : len(h)-1])
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

func benchChain(b *testing.B, input []byte) {
	for _, target := range []transcript.Target{anthropicTarget, googleTarget, vllmTarget} {
		b.Run(target.Provider, func(b *testing.B) {
			p := policy.Resolve(target)
			b.ReportAllocs()
			b.SetBytes(int64(len(input)))
			for b.Loop() {
				tr, err := transcript.FromMessages(input, transcript.Target(target))
				if err != nil {
					b.Fatal(err)
				}
				env := &stage.Env{Policy: p, Report: stage.NewReport()}
				for _, st := range chain() {
					if err := st.Apply(context.Background(), tr, env); err != nil {
						b.Fatal(err)
					}
				}
				_ = tr.MessagesJSON()
			}
		})
	}
}

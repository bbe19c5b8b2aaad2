package stages

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/media"
	"github.com/hygiene-dev/hygiene/internal/stages/sendable"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// byteCounter is a stand-in tokenizer: a message is as many tokens as its
// JSON has bytes, bound and count alike, and the fixed part nothing.
// walked counts the messages it was asked about.
type byteCounter struct{ walked *int }

func (byteCounter) Name() string { return "bytes" }

func (c byteCounter) Message(m *transcript.Message) int {
	*c.walked++
	return len(m.AppendJSON(nil))
}

func (c byteCounter) MessageBound(m *transcript.Message) int { return c.Message(m) }

func (byteCounter) Request(system, tools []byte) int { return 0 }

func (byteCounter) RequestBound(system, tools []byte) int { return 0 }

// TestContractAfterAnEdit: the contract takes the context fit's count when
// only read-only rules ran after the fit (it counts nothing), and counts
// again after a rule that may edit: a history that rule pushed over the
// window is refused as before, and one it left within the window passes.
func TestContractAfterAnEdit(t *testing.T) {
	const window = 2000
	msgs := []byte(`[{"role":"user","content":"what is in the file?"},{"role":"assistant","content":[{"type":"text","text":"It holds a list."}]},{"role":"user","content":"and then?"}]`)
	grow := func(n int) stage.Stage {
		return stage.Stage{Name: "grow", Apply: func(_ context.Context, t *transcript.Transcript, _ *stage.Env) error {
			if n > 0 {
				t.Messages[len(t.Messages)-1].Set("content", transcript.JSONString(strings.Repeat("x", n)))
			}
			return nil
		}}
	}
	for _, tc := range []struct {
		name      string
		between   []stage.Stage
		contract  int // messages the contract must count: -1 any number but 0
		overflows bool
	}{
		{"read-only after the fit", []stage.Stage{sendable.EmptyHistory()}, 0, false},
		{"an edit within the window", []stage.Stage{grow(100)}, -1, false},
		{"an edit that edits nothing", []stage.Stage{grow(0)}, -1, false},
		{"an edit over the window", []stage.Stage{grow(window)}, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := chainTarget
			tr, err := transcript.FromMessages(msgs, tg)
			if err != nil {
				t.Fatal(err)
			}
			walked := 0
			env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport(),
				Budget: contract.Budget{Counter: byteCounter{&walked}, Window: window, Reserve: 100}}
			fit := media.ContextFit()
			chain := append(append([]stage.Stage{fit}, tc.between...), stage.Stage{Name: "mark", ReadOnly: true,
				Apply: func(context.Context, *transcript.Transcript, *stage.Env) error { walked = 0; return nil }}, sendable.Contract())
			err = stage.Run(context.Background(), chain, tr, env)
			if tc.contract == 0 && walked != 0 || tc.contract < 0 && walked == 0 {
				t.Errorf("the contract counted %d messages", walked)
			}
			rej, refused := errors.AsType[*stage.Reject](err)
			if refused != tc.overflows {
				t.Fatalf("refused %v (%v), want %v", refused, err, tc.overflows)
			}
			if tc.overflows && (rej.Code != deadletter.CodeUnsendable || env.Report.Contract.ByRule[contract.RuleContextWindow] != 1) {
				t.Errorf("refused as %s (%s), report %+v; want unsendable for the context window", rej.Code, rej.Msg, env.Report.Contract)
			}
		})
	}
}

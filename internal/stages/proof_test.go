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

// TestContractSizeAfterAnEdit: the contract's size check takes the
// request_size rule's measure while no rule edited the history since (a
// fit that trims nothing edits nothing), and measures again after a rule
// that may edit: a history that rule pushed over the size limit is
// refused as before.
func TestContractSizeAfterAnEdit(t *testing.T) {
	const limit = 1000
	msgs := []byte(`[{"role":"user","content":"what is in the file?"},{"role":"assistant","content":[{"type":"text","text":"It holds a list."}]},{"role":"user","content":"and then?"}]`)
	grow := stage.Stage{Name: "grow", Apply: func(_ context.Context, t *transcript.Transcript, _ *stage.Env) error {
		t.Messages[len(t.Messages)-1].Set("content", transcript.JSONString(strings.Repeat("x", limit)))
		return nil
	}}
	for _, tc := range []struct {
		name    string
		between []stage.Stage
		over    bool
	}{
		{"nothing after it", nil, false},
		{"a fit that trims nothing", []stage.Stage{media.ContextFit()}, false},
		{"an edit over the limit", []stage.Stage{grow}, true},
		{"an edit over the limit after the fit", []stage.Stage{media.ContextFit(), grow}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := transcript.FromMessages(msgs, chainTarget)
			if err != nil {
				t.Fatal(err)
			}
			walked := 0
			env := &stage.Env{Policy: policy.Resolve(chainTarget), Report: stage.NewReport(),
				Budget: contract.Budget{Counter: byteCounter{&walked}, Window: 100_000, Reserve: 100}}
			env.Policy.Contract.MaxRequestBytes = limit
			chain := append(append([]stage.Stage{media.RequestSize()}, tc.between...), sendable.Contract())
			err = stage.Run(context.Background(), chain, tr, env)
			if _, proved := env.Unedited(env.RequestSize); proved == tc.over {
				t.Errorf("the request_size rule's measure stands %v after the chain", proved)
			}
			rej, refused := errors.AsType[*stage.Reject](err)
			if refused != tc.over {
				t.Fatalf("refused %v (%v), want %v", refused, err, tc.over)
			}
			if tc.over && (rej.Code != deadletter.CodeUnsendable || env.Report.Contract.ByRule[contract.RuleRequestSize] != 1) {
				t.Errorf("refused as %s (%s); want unsendable for the request size", rej.Code, rej.Msg)
			}
		})
	}
}

package media

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// quarterCounter is a stand-in tokenizer for the fit's tests: a message
// is a quarter of its JSON bytes (rounded up), the fixed part a quarter of
// its bytes, and the bounds are one token per byte, as a byte-level BPE's.
// counted records how many messages it counted exactly.
type quarterCounter struct{ counted *int }

func (quarterCounter) Name() string { return "quarter" }

func (c quarterCounter) Message(m *transcript.Message) int {
	if c.counted != nil {
		*c.counted++
	}
	return (len(m.AppendJSON(nil)) + 3) / 4
}

func (quarterCounter) Request(system, tools []byte) int { return (len(system) + len(tools) + 3) / 4 }

func (quarterCounter) MessageBound(m *transcript.Message) int { return len(m.AppendJSON(nil)) }

func (quarterCounter) RequestBound(system, tools []byte) int { return len(system) + len(tools) }

// fitSettings are the configuration's pruning defaults (whose soft trim and
// placeholder the fit reuses, TTL gate shut) and the fit mode.
func fitSettings(mode string) stage.Settings {
	s := pruneSettings(1)
	s.Request = settings.Request{}
	s.Pruning.Mode = settings.PruningOff
	s.Context = settings.Context{Fit: mode}
	return s
}

func summaryMsg(text string) string {
	return `{"role":"compactionSummary","summary":` + js(text) + `,"tokensBefore":90000,"timestamp":1}`
}

func pad(word string, n int) string { return strings.Repeat(word+" ", n) }

// history is a compaction summary and four user turns, each with a tool
// round (a 10,000-char result) and a long answer, then the latest user
// turn with its own tool round.
var history = "[" + strings.Join([]string{
	summaryMsg("Earlier: the user set up the repository."),
	u("first " + pad("alpha", 400)), call("c1", "read"), result("c1", "read", big), a(pad("one", 600)),
	u("second " + pad("beta", 400)), call("c2", "read"), result("c2", "read", big), a(pad("two", 600)),
	u("third " + pad("gamma", 400)), call("c3", "exec"), result("c3", "exec", big), a(pad("three", 600)),
	u("fourth " + pad("delta", 400)), a(pad("four", 600)),
	u("latest question"), call("c5", "read"), result("c5", "read", "short"), a("final answer"),
}, ",") + "]"

func fitCase(mode string, window int, counted *int) stagetest.Case {
	return stagetest.Case{
		Target:   stagetest.Anthropic,
		Settings: fitSettings(mode),
		Budget:   contract.Budget{Counter: quarterCounter{counted}, Window: window, Reserve: 1000},
	}
}

func TestContextFitModes(t *testing.T) {
	whole := len(history) // about 4x the quarter count
	for _, tc := range []struct {
		name   string
		mode   string
		window int
		// what the output must show
		code         deadletter.Code
		says         string
		turnsDropped int
		trimmed      bool
		unchanged    bool
		counted      bool
	}{
		{name: "bound proves the fit: nothing counted", mode: settings.FitTrim, window: whole + 2000, unchanged: true},
		{name: "over the bound, the count fits", mode: settings.FitTrim, window: whole/4 + 2000, unchanged: true, counted: true},
		{name: "trimming tool results is enough", mode: settings.FitTrim, window: whole/4 - 2000, trimmed: true, counted: true},
		{name: "turns dropped after trimming", mode: settings.FitTrim, window: whole/4 - 9000, trimmed: true, turnsDropped: 3, counted: true},
		{name: "refuse", mode: settings.FitRefuse, window: whole/4 - 2000, code: deadletter.CodeContextOverflow,
			says: "reserved for output", counted: true},
		{name: "report writes it as it is", mode: settings.FitReport, window: whole/4 - 2000, unchanged: true, counted: true},
		{name: "the kept part does not fit", mode: settings.FitTrim, window: 1100, code: deadletter.CodeContextOverflow,
			says: "always kept", counted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counted := 0
			c := fitCase(tc.mode, tc.window, &counted)
			res, err := c.Run([]byte(history), ContextFit())
			if tc.code != "" {
				var rej *stage.Reject
				if !errors.As(err, &rej) || rej.Code != tc.code || !strings.Contains(rej.Msg, tc.says) {
					t.Fatalf("got %v, want %s saying %q", err, tc.code, tc.says)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := counted > 0; got != tc.counted {
				t.Errorf("counted %d messages, want counting %v", counted, tc.counted)
			}
			if tc.unchanged != (string(res.JSON) == stagetest.Compact(t, history)) {
				t.Errorf("unchanged = %v, want %v", !tc.unchanged, tc.unchanged)
			}
			fit := res.Report.ContextFit
			switch {
			case tc.mode == settings.FitReport:
				if fit == nil || fit.Fits || fit.TokensAfter != fit.TokensBefore || fit.Tokenizer != "quarter" {
					t.Fatalf("report mode: %+v", fit)
				}
				return
			case tc.unchanged:
				if fit != nil {
					t.Fatalf("a job that fits has a context_fit report: %+v", fit)
				}
				return
			}
			if fit == nil || !fit.Fits || fit.TokensAfter > tc.window-1000 || fit.TokensAfter >= fit.TokensBefore {
				t.Fatalf("fit report %+v, room %d", fit, tc.window-1000)
			}
			if (fit.SoftTrimmed+fit.HardCleared > 0) != tc.trimmed || fit.TurnsDropped != tc.turnsDropped {
				t.Errorf("fit report %+v, want trimmed %v and %d turns dropped", fit, tc.trimmed, tc.turnsDropped)
			}
			out := string(res.JSON)
			if !strings.Contains(out, "latest question") || !strings.Contains(out, "final answer") || !strings.Contains(out, "Earlier: the user") {
				t.Errorf("the latest turn or the summary is gone: %s", out)
			}
			if tc.turnsDropped > 0 && !strings.Contains(out, `"text":"[3 earlier turns (12 messages) left out to fit the model's context window]"`) {
				t.Errorf("no placeholder: %.400s", out)
			}
			if res := contract.Check(res.Transcript.Messages, contract.Of(contract.AnthropicMessages), 0); !res.OK() {
				t.Errorf("fitted history breaks the contract: %s", res.Summary())
			}
			// idempotent: the fitted history fits, so a second run leaves it
			again, err := c.Run(res.JSON, ContextFit())
			if err != nil || string(again.JSON) != out || again.Report.ContextFit != nil {
				t.Errorf("second run changed it: %v", err)
			}
		})
	}
}

// TestContextFitKeepsPairsAndSignedTurns drops turns from a history of
// signed thinking turns and tool rounds: every call keeps its result, and
// every kept assistant turn is byte-identical to its input.
func TestContextFitKeepsPairsAndSignedTurns(t *testing.T) {
	signed := func(id string) string {
		return `{"role":"assistant","content":[{"type":"thinking","thinking":` + js(pad("think", 300)) +
			`,"thinkingSignature":"EqQBCkYIBxgCKkB` + id + `"},{"type":"toolCall","id":"` + id + `","name":"read","arguments":{"path":"a.go"}}],"stopReason":"toolUse"}`
	}
	var msgs []string
	for i := range 12 {
		id := "toolu_0" + string(rune('a'+i))
		msgs = append(msgs, u(pad("ask", 200)), signed(id), result(id, "read", pad("line", 300)), a(pad("done", 100)))
	}
	in := "[" + strings.Join(msgs, ",") + "]"
	c := fitCase(settings.FitTrim, len(in)/8, nil)
	res, err := c.Run([]byte(in), ContextFit())
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.ContextFit == nil || res.Report.ContextFit.TurnsDropped == 0 {
		t.Fatalf("nothing dropped: %+v", res.Report.ContextFit)
	}
	if r := contract.Check(res.Transcript.Messages, contract.Of(contract.AnthropicMessages), 0); !r.OK() {
		t.Fatalf("contract: %s", r.Summary())
	}
	for _, m := range res.Transcript.Messages {
		if m.Role() == transcript.RoleAssistant && !strings.Contains(in, string(m.AppendJSON(nil))) {
			t.Errorf("kept assistant turn edited: %s", m.AppendJSON(nil))
		}
	}
}

// TestContextFitCancelled stops with the context's error.
func TestContextFitCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr, err := transcript.FromMessages([]byte(history), stagetest.Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	env := &stage.Env{Settings: fitSettings(settings.FitTrim), Report: stage.NewReport(),
		Budget: contract.Budget{Counter: quarterCounter{}, Window: len(history)/4 - 2000, Reserve: 1000}}
	if err := ContextFit().Apply(ctx, tr, env); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

package stages

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/turns"
	"github.com/hygiene-dev/hygiene/internal/tokens"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// fitChain runs the default chain over messages for tg with a context
// window of window tokens (0: no budget, today's chain) and 1,000 tokens
// of output reserved, the configuration's pruning defaults (TTL gate
// shut) and context_fit mode ("": trim).
func fitChain(t testing.TB, tg transcript.Target, messages []byte, window int, mode ...string) (*transcript.Transcript, *stage.Env, *stage.Reject) {
	t.Helper()
	tr, err := transcript.FromMessages(messages, tg)
	if err != nil {
		t.Fatal(err)
	}
	env := chainEnv(tr)
	env.Policy = policy.Resolve(tg)
	env.ModelChanged = turns.ModelChanged(tr.CustomEntries, env.Policy)
	env.Settings.Pruning = settings.Pruning{
		Mode: settings.PruningOff, TTL: settings.Duration(5 * time.Minute), KeepLastAssistants: 3,
		SoftTrimRatio: 0.3, HardClearRatio: 0.5, MinPrunableToolChars: 50_000,
		SoftTrim:  settings.SoftTrim{MaxChars: 4000, HeadChars: 1500, TailChars: 1500},
		HardClear: settings.HardClear{Enabled: true, Placeholder: "[Old tool result content cleared]"},
	}
	env.Settings.Context = settings.Context{Fit: settings.FitTrim, MaxOutputTokens: 1000}
	if len(mode) > 0 {
		env.Settings.Context.Fit = mode[0]
	}
	if window > 0 {
		env.Settings.Context.WindowTokens = window
		env.Budget = stage.BudgetFor(tg, env.Settings, nil)
	}
	return tr, env, applyDefault(t, tr, env)
}

// countOf is the request's token count for tg, every message counted.
func countOf(tg transcript.Target, tr *transcript.Transcript) int {
	c := tokens.For(tg.Provider, tg.API, tg.Model)
	n := c.Request(contract.FixedParts(tr.Options))
	for _, m := range tr.Messages {
		n += c.Message(m)
	}
	return n
}

// TestContextFitProperties is issue 30's properties over realistic
// histories at 10x to 50x a window, on one target of each API family
// (sessiongen.RealAPIs): the job is
// ready and its payload fits the window with the reserve by the target's
// own count; no call is separated from its result and the contract holds
// (the chain's last rule); every kept assistant turn, signed ones
// included, is byte-identical to the unfitted output's; the latest user
// turn and everything after it are kept; a second run over the fitted
// payload changes nothing; and a window the history fits gives today's
// bytes exactly.
func TestContextFitProperties(t *testing.T) {
	factors := []int{10, 25, 50}
	if testing.Short() {
		factors = []int{10, 50}
	}
	for _, tg := range sessiongen.RealAPIs {
		t.Run(tg.Provider+"/"+tg.API, func(t *testing.T) {
			for k, factor := range factors {
				input := sessiongen.RealShapes(sessiongen.RealConfig{Seed: uint64(3000 + k), Target: tg, Turns: 120,
					Foreign: k%2 == 1, StandIns: true, ExtraRoles: true}).History()
				today, _, rej := fitChain(t, tg, input, 0)
				if rej != nil {
					t.Fatalf("factor %d: refused without a budget: %v", factor, rej)
				}
				whole := countOf(tg, today)
				window := whole/factor + 1000
				fitted, env, rej := fitChain(t, tg, input, window)
				if rej != nil {
					t.Fatalf("factor %d (%d tokens, window %d): %v", factor, whole, window, rej)
				}
				rep := env.Report.ContextFit
				if rep == nil || !rep.Fits || rep.TurnsDropped == 0 {
					t.Fatalf("factor %d: fit report %+v", factor, rep)
				}
				t.Logf("factor %d: %d messages, %d tokens (%s) into a %d-token window: %d tool results trimmed, %d cleared, %d turns (%d messages) dropped, %d tokens after",
					factor, len(today.Messages), whole, rep.Tokenizer, window, rep.SoftTrimmed, rep.HardCleared, rep.TurnsDropped, rep.MessagesDropped, rep.TokensAfter)
				if n := countOf(tg, fitted); n+1000 > window || n != rep.TokensAfter {
					t.Errorf("factor %d: %d tokens + 1000 reserved > window %d (report says %d)", factor, n, window, rep.TokensAfter)
				}
				checkFitKept(t, today.Messages, fitted.Messages)
				again, _, rej := fitChain(t, tg, fitted.MessagesJSON(), window)
				if rej != nil || !bytes.Equal(again.MessagesJSON(), fitted.MessagesJSON()) {
					t.Errorf("factor %d: a second run changed the fitted payload (%v):\n%s", factor, rej,
						messageDiff(t, fitted.MessagesJSON(), again.MessagesJSON()))
				}
				roomy, env, rej := fitChain(t, tg, input, whole+2000)
				if rej != nil || env.Report.ContextFit != nil || !bytes.Equal(roomy.MessagesJSON(), today.MessagesJSON()) {
					t.Errorf("factor %d: a history that fits is not today's output (%v)", factor, rej)
				}
			}
		})
	}
}

// checkFitKept checks a fitted message list against the unfitted one: each
// kept assistant turn is one of the unfitted output's, unchanged; the
// latest user message and every message after it are kept (tool results
// may be trimmed; the assistants byte-identical); and the fitted history
// is a subsequence of the unfitted one in order, but for its first kept
// user message (the placeholder in front) and trimmed tool results.
func checkFitKept(t *testing.T, today, fitted []*transcript.Message) {
	t.Helper()
	assistants := map[string]bool{}
	for _, m := range today {
		if m.Role() == transcript.RoleAssistant {
			assistants[string(m.AppendJSON(nil))] = true
		}
	}
	for i, m := range fitted {
		if m.Role() == transcript.RoleAssistant && !assistants[string(m.AppendJSON(nil))] {
			t.Errorf("messages[%d]: a kept assistant turn was edited", i)
		}
	}
	latest := func(ms []*transcript.Message) int {
		for i := len(ms) - 1; i >= 0; i-- {
			if ms[i].Role() == transcript.RoleUser {
				return i
			}
		}
		return -1
	}
	a, b := latest(today), latest(fitted)
	if a < 0 || b < 0 || len(today)-a != len(fitted)-b {
		t.Fatalf("the latest user turn and what follows it are not kept: %d of %d, %d of %d", a, len(today), b, len(fitted))
	}
	for i := range len(today) - a {
		x, y := today[a+i], fitted[b+i]
		if x.Role() != y.Role() || (x.Role() == transcript.RoleAssistant && !bytes.Equal(x.AppendJSON(nil), y.AppendJSON(nil))) {
			t.Errorf("after the latest user turn, message %d differs: %s", i, fmt.Sprint(x.Role(), " ", y.Role()))
		}
	}
}

// TestContextFitRefuseAndOverflow: context_fit refuse refuses what trim
// would fit, naming the count, the window and the reserve; a window the
// latest turn alone is over is context_overflow in trim mode too.
func TestContextFitRefuseAndOverflow(t *testing.T) {
	tg := sessiongen.RealAPIs[0]
	input := sessiongen.RealShapes(sessiongen.RealConfig{Seed: 3100, Target: tg, Turns: 40}).History()
	today, _, _ := fitChain(t, tg, input, 0)
	window := countOf(tg, today)/10 + 1000
	for _, tc := range []struct {
		mode   string
		window int
		says   string
	}{
		{settings.FitRefuse, window, fmt.Sprintf("+ 1000 reserved for output = %%d > the %d-token context window (options.context_fit is refuse)", window)},
		{settings.FitTrim, 1100, "always kept"},
	} {
		_, env, rej := fitChain(t, tg, input, tc.window, tc.mode)
		if rej == nil || rej.Code != deadletter.CodeContextOverflow {
			t.Fatalf("%s: got %v, want context_overflow", tc.mode, rej)
		}
		want := tc.says
		if rep := env.Report.ContextFit; rep == nil {
			t.Fatalf("%s: no figures in the report", tc.mode)
		} else if tc.mode == settings.FitRefuse {
			want = fmt.Sprintf(tc.says, rep.TokensBefore+1000)
		}
		if !strings.Contains(rej.Msg, want) {
			t.Errorf("%s: %q does not say %q", tc.mode, rej.Msg, want)
		}
	}
}

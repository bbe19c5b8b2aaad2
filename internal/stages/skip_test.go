package stages

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/turns"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// skipInputs are the histories the skip's properties run over: the golden
// inputs, realistic histories of every API family (with stand-ins, foreign
// turns and the extra roles), and generated ones with no damage, the
// realistic mix and the heavy one, images included.
func skipInputs(t *testing.T) [][]byte {
	t.Helper()
	var inputs [][]byte
	names, _ := filepath.Glob("testdata/golden/*input.json")
	more, _ := filepath.Glob("testdata/golden/*/*input.json")
	for _, name := range append(names, more...) {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var job struct {
			Messages json.RawMessage `json:"messages"`
		}
		if raw[0] == '{' && json.Unmarshal(raw, &job) == nil {
			raw = job.Messages
		}
		inputs = append(inputs, raw)
	}
	if len(inputs) < 5 {
		t.Fatalf("%d golden inputs found", len(inputs))
	}
	for i, tg := range sessiongen.RealAPIs {
		inputs = append(inputs, sessiongen.RealShapes(sessiongen.RealConfig{Seed: uint64(500 + i), Target: tg, Turns: 5,
			Foreign: i%2 == 0, StandIns: true, ExtraRoles: i%3 != 1}).History())
	}
	for seed, damage := range []sessiongen.Damage{{}, sessiongen.Realistic(), sessiongen.Heavy(), sessiongen.Heavy()} {
		inputs = append(inputs, sessiongen.New(sessiongen.Config{Seed: uint64(40 + seed), Messages: 40, ToolCallDensity: 0.7,
			Damage: damage, TextChars: 60, ToolResultChars: 80, Images: seed % 2, ImageWidth: 64, ImageHeight: 48,
			RealLengthIDs: seed > 1}).History())
	}
	return inputs
}

// skipRequests are the request settings the properties try: the
// default, no tools offered (tools as text), replay_invalid, thinking of
// the latest turn not kept, and a context window small enough to prune.
var skipRequests = []settings.Request{
	{},
	{ToolsOffered: new(false)},
	{ReplayInvalid: true},
	{PreserveLatestAssistantThinking: new(false)},
	{ContextWindowTokens: new(2000)},
}

// skipEnv is the chain tests' environment for tr on tg with the request
// settings req (the tests' clock); runAll turns the skip off.
func skipEnv(tr *transcript.Transcript, tg transcript.Target, req settings.Request, runAll bool) *stage.Env {
	env := chainEnv(tr)
	env.Policy = policy.Resolve(tg)
	req.NowMs = env.Settings.Request.NowMs
	env.Settings.Request = req
	env.ModelChanged = turns.ModelChanged(tr.CustomEntries, env.Policy)
	env.RunAll = runAll
	return env
}

// chainOutcome is everything the chain's run over input gives: the
// messages, the entries to append, the renamed tools and the report, or
// the refusal and the report so far.
func chainOutcome(t *testing.T, tg transcript.Target, input []byte, req settings.Request, runAll bool) []byte {
	t.Helper()
	tr, err := transcript.FromMessages(input, tg)
	if err != nil {
		t.Fatal(err)
	}
	env := skipEnv(tr, tg, req, runAll)
	rej := applyDefault(t, tr, env)
	return outcomeBytes(t, tr, env, rej)
}

// outcomeBytes encodes what a run left: tr's payload with env's report,
// and the refusal when there was one.
func outcomeBytes(t *testing.T, tr *transcript.Transcript, env *stage.Env, err error) []byte {
	t.Helper()
	report, jerr := env.Report.AppendJSON(nil)
	if jerr != nil {
		t.Fatal(jerr)
	}
	return fmt.Appendf(tr.EncodePayload(nil, report), "\nerror: %v", err)
}

// TestSkipKeepsOutput is the property of the rule skip: over the golden
// inputs, the realistic histories and the generated ones, for every target
// of the table (-short: a third of them) with the default request settings
// and one other (in turn), the chain's output (messages, entries, tool
// names, report, refusal) is byte-identical with the skip on and off. It
// also checks that the skip skips: some rules of some runs.
func TestSkipKeepsOutput(t *testing.T) {
	inputs := skipInputs(t)
	skipped := 0
	for n, tc := range targets {
		if testing.Short() && n%3 != 0 {
			continue // a third of the targets, every family among them
		}
		t.Run(tc.name, func(t *testing.T) {
			for i, input := range inputs {
				for _, k := range []int{0, 1 + i%(len(skipRequests)-1)} { // the default, and the others in turn
					req := skipRequests[k]
					on, off := chainOutcome(t, tc.t, input, req, false), chainOutcome(t, tc.t, input, req, true)
					if !bytes.Equal(on, off) {
						t.Fatalf("input %d, settings %d: the output with the skip differs from every rule run\n%s", i, k, firstDiff(on, off))
					}
				}
				tr, err := transcript.FromMessages(input, tc.t)
				if err != nil {
					t.Fatal(err)
				}
				facts := tr.Facts()
				for _, s := range Default(imgs) {
					if s.Needs != 0 && facts&s.Needs == 0 {
						skipped++
					}
				}
			}
		})
	}
	if skipped == 0 {
		t.Fatal("no rule was skipped on any input: the property compares a chain with itself")
	}
}

// TestNeedsAreWideEnough checks each rule's declarations directly: over
// short runs of messages cut from the inputs (one to four messages, which
// lack most facts), for the targets in turn and two request settings (the
// default, no tools offered), the chain runs every rule, and before each
// rule the runner would skip (its guard, On, is off, or the messages as
// they are at that point lack its Needs) the rule must leave them, the
// report and the refusal as they were; and no rule may bring in a fact a
// rule reads unless it declares it (Adds), so the runner's facts stay a
// superset of the job's. A declaration too narrow, or a guard that is not
// the rule's, fails here for a window where it matters.
func TestNeedsAreWideEnough(t *testing.T) {
	chain := Default(imgs)
	checked := map[string]int{}
	windows := 0 // the targets take turns, window by window
	for _, input := range skipInputs(t) {
		var msgs []json.RawMessage
		if err := json.Unmarshal(input, &msgs); err != nil {
			t.Fatal(err)
		}
		for size := 1; size <= 4; size++ {
			for lo := 0; lo+size <= len(msgs); lo += size {
				window, _ := json.Marshal(msgs[lo : lo+size])
				for k, req := range skipRequests[:2] {
					windows++
					checkNeeds(t, chain, targets[(2*windows+k)%len(targets)].t, window, req, checked)
				}
			}
		}
	}
	for _, s := range chain {
		if (s.Needs != 0 || s.On != nil) && checked[s.Name] == 0 {
			t.Errorf("rule %s was never run where the runner skips it: its declaration is untested", s.Name)
		}
	}
}

// checkNeeds runs chain over window for tg, every rule run, and checks that
// a rule the runner would skip (its guard off, or its Needs lacking)
// changes nothing, and that no rule
// brings in a fact some rule reads that it did not declare in Adds (see
// TestNeedsAreWideEnough); checked counts the runs of the first kind by
// rule.
func checkNeeds(t *testing.T, chain []stage.Stage, tg transcript.Target, window []byte, req settings.Request, checked map[string]int) {
	t.Helper()
	tr, err := transcript.FromMessages(window, tg)
	if err != nil {
		t.Fatal(err)
	}
	var read transcript.Facts // every fact some rule reads
	for _, s := range chain {
		read |= s.Needs
	}
	env := skipEnv(tr, tg, req, true)
	for _, s := range chain {
		held := tr.Facts()
		lacks := s.On != nil && !s.On(env) || s.Needs != 0 && held&s.Needs == 0
		var before []byte
		if lacks {
			before = outcomeBytes(t, tr, env, nil)
		}
		err := s.Apply(context.Background(), tr, env)
		if lacks {
			checked[s.Name]++
			if after := outcomeBytes(t, tr, env, err); !bytes.Equal(before, after) {
				t.Fatalf("rule %s changed messages it skips (guard on %v; Needs %b, they hold %b), target %s:\n%s\n%s",
					s.Name, s.On == nil || s.On(env), s.Needs, held, tg.API, window, firstDiff(before, after))
			}
		}
		if added := tr.Facts() & read &^ (held | s.Adds); added != 0 {
			t.Fatalf("rule %s brought in facts %b it does not declare in Adds, target %s:\n%s\n%s", s.Name, added, tg.API, window, tr.MessagesJSON())
		}
		if err != nil {
			return
		}
	}
}

// BenchmarkChainSkip is BenchmarkDefaultChain's job (decode, chain,
// encode) with the rule skip on and off (stage.Env.RunAll) in turn, each
// iteration one of each, on one locked OS thread: it reports each one's
// CPU time per job (ms-cpu-skip, ms-cpu-run-all) and the share the skip
// saves, figures a shared machine's load hardly moves.
func BenchmarkChainSkip(b *testing.B) {
	tg := chainTarget
	for _, c := range chainHistories() {
		history := c.data
		b.Run(c.name, func(b *testing.B) {
			chain := Default(imgs)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var spent [2]time.Duration // skip, run-all
			for i := 0; b.Loop(); i++ {
				for k := range 2 {
					runAll := (i+k)%2 == 1
					start := threadCPU(b)
					tr, err := transcript.FromMessages(history, tg)
					if err != nil {
						b.Fatal(err)
					}
					env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport(), RunAll: runAll}
					if err := stage.Run(context.Background(), chain, tr, env); err != nil {
						b.Fatal(err)
					}
					_ = tr.MessagesJSON()
					spent[(i+k)%2] += threadCPU(b) - start
				}
			}
			b.ReportMetric(float64(spent[0].Microseconds())/1000/float64(b.N), "ms-cpu-skip")
			b.ReportMetric(float64(spent[1].Microseconds())/1000/float64(b.N), "ms-cpu-run-all")
			b.ReportMetric(100*(1-float64(spent[0])/float64(spent[1])), "%saved")
		})
	}
}

// threadCPU is the CPU time of the calling OS thread.
func threadCPU(b *testing.B) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package pairing

import (
	"context"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// pairedCases are histories and what pairedAsIs answers of them; they are
// also FuzzPairedAsIs's seeds.
var pairedCases = []struct {
	name          string
	in            string
	paired, exact bool
}{
	{"no calls", arr(user("hi"), asst("stop", 1000)), true, true},
	{"empty", arr(), true, true},
	{"one frame", arr(user("go"), asst("toolUse", 1000, tc("c1", "read")), res("c1", "read", "ok"), asst("stop", 2000)), true, true},
	{"two calls in order", arr(asst("toolUse", 1000, tc("c1", "read"), tc("c2", "exec")), res("c1", "read", "a"), res("c2", "exec", "b")), true, true},
	{"a duplicate id in a turn, answered in order", arr(asst("toolUse", 1000, tc("c1", "read"), tc("c1", "read")), res("c1", "read", "a"), res("c1", "read", "b")), true, true},
	{"an id reused by a later frame", arr(asst("toolUse", 1000, tc("c1", "read")), res("c1", "read", "a"), user("again"), asst("toolUse", 2000, tc("c1", "read")), res("c1", "read", "b")), true, true},
	{"a padded result id: paired, not exact", arr(asst("toolUse", 1000, tc("c1", "read")), `{"role":"toolResult","toolCallId":" c1 ","toolName":"read","content":[]}`), true, false},
	{"a result id under another key", arr(asst("toolUse", 1000, tc("c1", "read")), `{"role":"toolResult","tool_call_id":"c1","toolName":"read","content":[]}`), true, true},
	{"null before the first frame", arr(`null`, asst("toolUse", 1000, tc("c1", "read")), res("c1", "read", "ok")), true, true},
	{"a string entry in a frame", arr(asst("toolUse", 1000, tc("c1", "read")), res("c1", "read", "ok"), `"text"`), true, true},
	{"null in a frame", arr(asst("toolUse", 1000, tc("c1", "read")), res("c1", "read", "ok"), `null`), false, false},
	{"a missing result", arr(asst("toolUse", 1000, tc("c1", "read"), tc("c2", "exec")), res("c1", "read", "a"), user("next")), false, false},
	{"the last call unanswered at the end", arr(asst("toolUse", 1000, tc("c1", "read"), tc("c2", "exec")), res("c1", "read", "a")), false, false},
	{"results swapped", arr(asst("toolUse", 1000, tc("c1", "read"), tc("c2", "exec")), res("c2", "exec", "b"), res("c1", "read", "a")), false, false},
	{"a result after a user turn", arr(asst("toolUse", 1000, tc("c1", "read")), user("wait"), res("c1", "read", "a")), false, false},
	{"a duplicate result", arr(asst("toolUse", 1000, tc("c1", "read")), res("c1", "read", "a"), res("c1", "read", "b")), false, false},
	{"an orphan before any frame", arr(res("zz", "read", "x"), user("hi")), false, false},
	{"a failed turn", arr(asst("error", 1000, tc("c1", "read")), res("c1", "read", "a")), false, false},
	{"an aborted turn", arr(asst("aborted", 1000, tc("c1", "read")), res("c1", "read", "a")), false, false},
	{"an id-less result", arr(asst("toolUse", 1000, tc("c1", "read")), `{"role":"toolResult","toolName":"read","content":[]}`), false, false},
	{"a blank call id", arr(asst("toolUse", 1000, tc("  ", "read")), `{"role":"toolResult","toolCallId":"  ","toolName":"read","content":[]}`), false, false},
	{"no toolName", arr(asst("toolUse", 1000, tc("c1", "read")), `{"role":"toolResult","toolCallId":"c1","content":[]}`), false, false},
	{"a padded toolName", arr(asst("toolUse", 1000, tc("c1", "read")), `{"role":"toolResult","toolCallId":"c1","toolName":" read","content":[]}`), false, false},
	{"a synthetic result then the real one", arr(asst("toolUse", 1000, tc("c1", "read")), syn("c1", "read", D, "1000"), res("c1", "read", "real")), false, false},
}

// pairedOf decodes in for Anthropic and returns its messages.
func pairedOf(tb testing.TB, in string) []*transcript.Message {
	tb.Helper()
	t, err := transcript.FromMessages([]byte(in), transcript.Target(stagetest.Anthropic))
	if err != nil {
		tb.Fatalf("fixture: %v", err)
	}
	return t.Messages
}

func TestPairedAsIs(t *testing.T) {
	for _, c := range pairedCases {
		t.Run(c.name, func(t *testing.T) {
			paired, exact := pairedAsIs(pairedOf(t, c.in))
			if paired != c.paired || exact != c.exact {
				t.Fatalf("pairedAsIs = %v, %v; want %v, %v", paired, exact, c.paired, c.exact)
			}
			checkPairedIsAFixedPoint(t, c.in)
		})
	}
}

// checkPairedIsAFixedPoint checks what pairedAsIs promises of in: where it
// holds, the repair gives back the very message list with nothing counted
// and nothing written, and where it is exact too, the result-id alignment
// writes nothing either.
func checkPairedIsAFixedPoint(t *testing.T, in string) {
	t.Helper()
	msgs := pairedOf(t, in)
	paired, exact := pairedAsIs(msgs)
	if !paired {
		return
	}
	out, c := repair(msgs, repairOptions{text: "missing", failed: dropFailed})
	if len(out) != len(msgs) || (len(out) > 0 && &out[0] != &msgs[0]) || c != (repairCounts{}) {
		t.Fatalf("proved paired, but the repair gave %d messages of %d, counts %+v\nin: %s", len(out), len(msgs), c, in)
	}
	for i, m := range msgs {
		if m.Changed() {
			t.Fatalf("proved paired, but the repair edited message %d\nin: %s", i, in)
		}
	}
	if !exact {
		return
	}
	tr := &transcript.Transcript{Messages: msgs}
	env := &stage.Env{Policy: policy.Resolve(stagetest.Anthropic), Report: stage.NewReport()}
	if err := AlignResultIDs().Apply(context.Background(), tr, env); err != nil {
		t.Fatal(err)
	}
	if n := env.Report.Stages.Get("result_ids_aligned", "results"); n != 0 {
		t.Fatalf("proved exact, but the alignment wrote %d results\nin: %s", n, in)
	}
}

// The proof answers for what the repair does over damaged histories of
// every kind the generator makes, and over their repaired output, which
// the repair leaves as it is.
func TestPairedAsIsOverDamagedHistories(t *testing.T) {
	held := 0
	for seed := uint64(1); seed <= propertySeeds; seed++ {
		in := damagedHistory(seed, 3+int(seed%50))
		checkPairedIsAFixedPoint(t, in)
		out := stagetest.Case{Target: stagetest.Anthropic}.Apply(t, in, ToolResultPairing()).JSON
		if paired, _ := pairedAsIs(pairedOf(t, string(out))); paired {
			held++
		}
		checkPairedIsAFixedPoint(t, string(out))
	}
	if held == 0 {
		t.Fatal("no repaired history was proved paired: the proof never holds")
	}
}

// A clean session as real runtimes write it, for every API, is proved
// paired as it is, and its ids exact: the clean job's pairing and
// alignment read it once and write nothing.
func TestRealSessionsProvedPaired(t *testing.T) {
	for _, target := range sessiongen.RealAPIs {
		for seed := range uint64(4) {
			in := sessiongen.RealShapes(sessiongen.RealConfig{Seed: 3300 + seed, Target: target, Turns: 4 + int(seed), ExtraRoles: seed%2 == 1}).History()
			tr, err := transcript.FromMessages(in, target)
			if err != nil {
				t.Fatal(err)
			}
			if paired, exact := pairedAsIs(tr.Messages); !paired || !exact {
				t.Errorf("%s seed %d: pairedAsIs = %v, %v", target, seed, paired, exact)
			}
		}
	}
}

// Where the proof holds, the pairing rule leaves the proof of exact ids
// and says it edited nothing, so the alignment after it reads nothing;
// where the proof fails, the rule proves nothing.
func TestPairingProvesExactIDs(t *testing.T) {
	for _, c := range pairedCases {
		tr, err := transcript.FromMessages([]byte(c.in), transcript.Target(stagetest.Anthropic))
		if err != nil {
			t.Fatal(err)
		}
		env := &stage.Env{Policy: policy.Resolve(stagetest.Anthropic), Report: stage.NewReport()}
		var k stage.Skipper
		s := ToolResultPairing()
		ran := !k.Skip(&s, tr, env) // a history without calls or results skips it
		if ran {
			if err := s.Apply(context.Background(), tr, env); err != nil {
				t.Fatal(err)
			}
		}
		_, proved := env.Unedited(env.ResultIDsExact)
		if want := ran && c.paired && c.exact; proved != want {
			t.Errorf("%s: exact ids proved = %v, want %v", c.name, proved, want)
		}
	}
}

// FuzzPairedAsIs checks, on any history, that where pairedAsIs holds the
// repair and the alignment change nothing.
func FuzzPairedAsIs(f *testing.F) {
	for _, c := range pairedCases {
		f.Add([]byte(c.in))
	}
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := transcript.FromMessages(data, transcript.Target(stagetest.Anthropic)); err != nil {
			return
		}
		checkPairedIsAFixedPoint(t, string(data))
	})
}

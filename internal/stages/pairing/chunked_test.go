package pairing

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestChunkedRepairMatchesSequential splits damaged histories (displaced
// results across frames, ids repeated across turns, synthetic and id-less
// results, failed turns) into up to 8 segments and checks that the merged
// output and counts are the sequential run's, byte for byte, and that the
// histories were in fact cut.
func TestChunkedRepairMatchesSequential(t *testing.T) {
	fan := fanout.New(7, 1)
	cut := 0
	for seed := uint64(1); seed <= 4*propertySeeds; seed++ {
		in := damagedHistory(seed, 10+int(seed%80))
		wantJSON, wantCounts := runRepairJSON(t, in, repairOptions{text: "missing", failed: dropFailed})
		tr, err := transcript.FromMessages([]byte(in), transcript.Target(stagetest.Anthropic))
		if err != nil {
			t.Fatal(err)
		}
		if len(analyzeSegments(tr.Messages, 8, fan)) > 1 {
			cut++
		}
		out, counts := repairChunked(tr.Messages, repairOptions{text: "missing", failed: dropFailed}, 8, fan)
		tr.Messages = out
		if got := tr.MessagesJSON(); !bytes.Equal(got, wantJSON) {
			t.Fatalf("seed %d: chunked output differs\n in: %s\nseq: %s\nchk: %s", seed, in, wantJSON, got)
		}
		if counts != wantCounts {
			t.Fatalf("seed %d: chunked counts %+v, sequential %+v", seed, counts, wantCounts)
		}
	}
	if cut < 2*propertySeeds {
		t.Fatalf("only %d of %d histories were cut: the test does not exercise the segments", cut, 4*propertySeeds)
	}
}

// TestChunkedRepairKeepsDisplacedResult is the case a naive cut breaks: a
// result displaced far from its call must stay in its call's segment.
func TestChunkedRepairKeepsDisplacedResult(t *testing.T) {
	msgs := []string{asst("toolUse", 1, tc("far", "read"))}
	for i := range 20 {
		id := "c" + itoa(i)
		msgs = append(msgs, user("u"), asst("toolUse", 2+i, tc(id, "exec")), res(id, "exec", "ok"))
	}
	msgs = append(msgs, res("far", "read", "late"))
	in := arr(msgs...)
	want, wantCounts := runRepairJSON(t, in, repairOptions{text: "missing", failed: dropFailed})
	if wantCounts.moved != 1 {
		t.Fatalf("fixture: the late result should move back, counts %+v", wantCounts)
	}
	tr, err := transcript.FromMessages([]byte(in), transcript.Target(stagetest.Anthropic))
	if err != nil {
		t.Fatal(err)
	}
	if segs := analyzeSegments(tr.Messages, 4, fanout.New(3, 1)); len(segs) != 1 {
		t.Fatalf("%d segments: cut inside the span of the pending call", len(segs))
	}
	env := &stage.Env{Policy: policy.Resolve(stagetest.Anthropic), Report: stage.NewReport(), Fanout: fanout.New(3, 1)}
	runRepair(tr, env, ToolResultPairingName, "missing")
	if got := tr.MessagesJSON(); !bytes.Equal(got, want) {
		t.Fatalf("chunked output differs\nseq: %s\nchk: %s", want, got)
	}
}

// TestChunkedRepairCutsCleanHistory checks that a history where every call
// is answered in its frame is cut into the segments asked for, and that
// the stage reports what the sequential stage reports.
func TestChunkedRepairCutsCleanHistory(t *testing.T) {
	var msgs []string
	for i := range 40 {
		id := "c" + itoa(i)
		msgs = append(msgs, user("u"), asst("toolUse", 2+i, tc(id, "exec")), res(id, " exec ", "ok"))
	}
	in := arr(msgs...)
	seq := stagetest.Case{Target: stagetest.Anthropic}.Apply(t, in, ToolResultPairing())
	tr, err := transcript.FromMessages([]byte(in), transcript.Target(stagetest.Anthropic))
	if err != nil {
		t.Fatal(err)
	}
	fan := fanout.New(3, 1)
	if segs := analyzeSegments(tr.Messages, 4, fan); len(segs) != 4 {
		t.Fatalf("%d segments, want 4", len(segs))
	}
	env := &stage.Env{Policy: policy.Resolve(stagetest.Anthropic), Report: stage.NewReport(), Fanout: fan}
	if err := ToolResultPairing().Apply(t.Context(), tr, env); err != nil {
		t.Fatal(err)
	}
	if got := tr.MessagesJSON(); !bytes.Equal(got, seq.JSON) {
		t.Fatalf("chunked output differs\nseq: %s\nchk: %s", seq.JSON, got)
	}
	if !reflect.DeepEqual(env.Report, seq.Report) {
		t.Fatalf("chunked report %+v, sequential %+v", env.Report, seq.Report)
	}
	if !strings.Contains(string(seq.JSON), `"toolName":"exec"`) {
		t.Fatal("fixture: the padded names should be trimmed")
	}
}

// FuzzChunkedRepair checks the chunked repair against the sequential one
// on arbitrary message arrays (the fuzz seeds of the package, and
// concatenations of them, so that frames repeat ids across segments), split
// into 2 to 9 segments.
func FuzzChunkedRepair(f *testing.F) {
	seeds := fuzzSeeds()
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i))
		if i > 0 {
			f.Add([]byte(strings.TrimSuffix(seeds[i-1], "]")+","+strings.TrimPrefix(s, "[")), uint8(i))
		}
	}
	fan := fanout.New(3, 1)
	opts := repairOptions{text: "missing", failed: dropFailed}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		seq, err := transcript.FromMessages(data, transcript.Target(stagetest.Anthropic))
		if err != nil {
			return
		}
		chk, _ := transcript.FromMessages(data, transcript.Target(stagetest.Anthropic))
		out, wantCounts := repair(seq.Messages, opts)
		seq.Messages = out
		out, counts := repairChunked(chk.Messages, opts, 2+int(k%8), fan)
		chk.Messages = out
		if got, want := chk.MessagesJSON(), seq.MessagesJSON(); !bytes.Equal(got, want) {
			t.Fatalf("chunked output differs\n in: %s\nseq: %s\nchk: %s", data, want, got)
		}
		if counts != wantCounts {
			t.Fatalf("chunked counts %+v, sequential %+v", counts, wantCounts)
		}
	})
}

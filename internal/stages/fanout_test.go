package stages

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestChainFanoutMatchesSequential runs the whole chain over generated
// histories for every target twice, sequentially and with the work split
// into up to 8 chunks (the threshold at one message, so every history is
// split where it can be: pairing into segments, the per-message rules
// usage and blank_blocks into chunks of messages), and checks
// byte-identical output and an identical report, Reject included.
func TestChainFanoutMatchesSequential(t *testing.T) {
	fan := fanout.New(7, 1)
	for _, d := range []struct {
		name   string
		base   uint64
		damage sessiongen.Damage
	}{{"heavy", 0, sessiongen.Heavy()}, {"issue16", 1600, sessiongen.Issue16()}, {"realistic", 3200, sessiongen.Realistic()}} {
		forGenerated(t, d.base, sessiongen.Config{Damage: d.damage}, func(t *testing.T, tg transcript.Target, input []byte) {
			checkFanoutMatches(t, tg, input, fan)
		})
	}
}

// checkFanoutMatches runs the chain over input sequentially and with fan,
// and fails unless output, report and Reject are the same.
func checkFanoutMatches(t *testing.T, tg transcript.Target, input []byte, fan stage.Fanout) {
	t.Helper()
	seq, seqEnv, seqRej := runChainFanout(t, tg, input, nil, stage.Settings{}, nil)
	chk, chkEnv, chkRej := runChainFanout(t, tg, input, nil, stage.Settings{}, fan)
	if got, want := chk.MessagesJSON(), seq.MessagesJSON(); !bytes.Equal(got, want) {
		t.Fatalf("chunked output differs\n%s\ninput %s", messageDiff(t, want, got), input)
	}
	if !reflect.DeepEqual(chkEnv.Report, seqEnv.Report) || !reflect.DeepEqual(chkRej, seqRej) {
		t.Fatalf("chunked report %+v (%v), sequential %+v (%v)", chkEnv.Report, chkRej, seqEnv.Report, seqRej)
	}
}

// FuzzChainFanout holds the chunked chain (every rule that splits, at a
// threshold of one message, in 2 to 9 chunks) to the sequential chain on
// any message array: the same output bytes, report and Reject.
func FuzzChainFanout(f *testing.F) {
	for seed := range 4 {
		f.Add(sessiongen.New(sessiongen.Config{Seed: uint64(seed), Messages: 16, ToolCallDensity: 0.7, Damage: sessiongen.Heavy(), TextChars: 10, ToolResultChars: 10}).History(), uint8(seed))
		f.Add(sessiongen.New(sessiongen.Config{Seed: uint64(3200 + seed), Messages: 16, ToolCallDensity: 0.7, Damage: sessiongen.Realistic(), TextChars: 10, ToolResultChars: 10}).History(), uint8(seed*7))
	}
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"text","text":" "}]},{"role":"user","content":[]},{"role":"assistant","content":[],"usage":{"input":1}}]`), uint8(5))
	f.Fuzz(func(t *testing.T, input []byte, which uint8) {
		if len(input) > 1<<16 || transcript.Valid(input, 64) != nil || !bytes.HasPrefix(bytes.TrimSpace(input), []byte("[")) {
			return
		}
		tg := targets[int(which)%len(targets)].t
		checkFanoutMatches(t, tg, input, fanout.New(1+int(which)%8, 1))
	})
}

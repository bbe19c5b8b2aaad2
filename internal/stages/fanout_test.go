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
// split where it can be), and checks byte-identical output and an
// identical report, Reject included.
func TestChainFanoutMatchesSequential(t *testing.T) {
	fan := fanout.New(7, 1)
	for _, d := range []struct {
		name   string
		base   uint64
		damage sessiongen.Damage
	}{{"heavy", 0, sessiongen.Heavy()}, {"issue16", 1600, sessiongen.Issue16()}} {
		forGenerated(t, d.base, d.damage, func(t *testing.T, tg transcript.Target, input []byte) {
			seq, seqEnv, seqRej := runChainFanout(t, tg, input, nil, stage.Settings{}, nil)
			chk, chkEnv, chkRej := runChainFanout(t, tg, input, nil, stage.Settings{}, fan)
			if got, want := chk.MessagesJSON(), seq.MessagesJSON(); !bytes.Equal(got, want) {
				t.Fatalf("%s: chunked output differs\n%s\ninput %s", d.name, messageDiff(t, want, got), input)
			}
			if !reflect.DeepEqual(chkEnv.Report, seqEnv.Report) || !reflect.DeepEqual(chkRej, seqRej) {
				t.Fatalf("%s: chunked report %+v (%v), sequential %+v (%v)", d.name, chkEnv.Report, chkRej, seqEnv.Report, seqRej)
			}
		})
	}
}

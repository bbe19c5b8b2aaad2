package stages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestGoldenRealSessions runs one realistic session of each API family
// (sessiongen.RealShapes for each of sessiongen.RealAPIs: the runtime's own
// ids, signatures, partialJson, details, stand-ins, a retried failure,
// NO_REPLY, bashExecution and custom messages) through the chain for its own
// target, and compares the input and the output (messages, appended entries,
// report, or the refusal) with testdata/golden/real/<api>.input.json and
// <api>.json (go test -update rewrites).
func TestGoldenRealSessions(t *testing.T) {
	for i, tg := range sessiongen.RealAPIs {
		t.Run(tg.API, func(t *testing.T) {
			input := sessiongen.RealShapes(sessiongen.RealConfig{Seed: uint64(300 + i), Target: tg, Turns: 4,
				StandIns: true, ExtraRoles: true}).History()
			tr, env, rej := runChain(t, tg, input, nil, stage.Settings{})
			var got []byte
			if rej != nil {
				got = indent(t, fmt.Appendf(nil, `{"rejected":%q}`, rej.Error()))
			} else {
				report, _ := json.Marshal(env.Report)
				got = indent(t, fmt.Appendf(nil, `{"messages":%s,"append_entries":%d,"report":%s}`, tr.MessagesJSON(), len(tr.AppendEntries), report))
			}
			name := strings.ReplaceAll(tg.API, "/", "_")
			checkGolden(t, filepath.Join("real", name+".input.json"), indent(t, input))
			checkGolden(t, filepath.Join("real", name+".json"), got)
		})
	}
}

// checkGolden compares got with testdata/golden/<name>, or rewrites it
// under go test -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	if *update {
		writeGolden(t, name, got)
		return
	}
	path := filepath.Join("testdata", "golden", name)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (inspect, then go test -update ./internal/stages)\n%s", path, firstDiff(got, want))
	}
}

// TestRealGoldenTargetsAreInTheTable: every API the real-session goldens use
// is a target of the chain tests' table, so properties (a) and (b) cover it.
func TestRealGoldenTargetsAreInTheTable(t *testing.T) {
	for _, tg := range sessiongen.RealAPIs {
		found := false
		for _, tc := range targets {
			found = found || transcript.Target(tc.t).API == tg.API
		}
		if !found {
			t.Errorf("%s is not in the targets table", tg.API)
		}
	}
}

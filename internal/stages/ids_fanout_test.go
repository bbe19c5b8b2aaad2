package stages

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/toolcalls"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestIDPassesFanoutMatchSequential holds the id rules (tool_call_ids_early
// and tool_call_ids) split into 2, 3, 4 and 7 chunks (the threshold at one
// message) to their sequential run, for every target, on the damaged mixes
// and on RealShapes histories, all with ids of real lengths, with and
// without an allow-list (which makes replay-safe signed turns look at later
// results): byte-identical output, an identical report and the same error.
// It also counts, over all runs, the chunk cuts that fall between a call and
// a result with its id, and the trimmed call ids that occur in two chunks,
// and fails when either never happened, so the cases that need the global
// resolve are always covered.
func TestIDPassesFanoutMatchSequential(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	allowLists := [][]string{nil, {"read", "exec"}}
	var cover idCoverage
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range seeds {
				for n, input := range idInputs(tc.t, uint64(seed)) {
					for _, k := range []int{2, 3, 4, 7} {
						allow := allowLists[(seed+k)%len(allowLists)]
						for _, s := range []stage.Stage{toolcalls.ToolCallIDsInImagePass(), toolcalls.ToolCallIDs()} {
							name := fmt.Sprintf("seed %d input %d %s in %d chunks", seed, n, s.Name, k)
							checkIDFanout(t, name, tc.t, input, s, allow, k)
						}
						cover.add(t, tc.t, input, k)
					}
				}
			}
		})
	}
	t.Logf("%d cuts between a call and a result of its id, %d ids in two chunks", cover.callResultCuts, cover.sharedIDs)
	if cover.callResultCuts == 0 || cover.sharedIDs == 0 {
		t.Fatalf("no chunk cut between a call and its result (%d) or no id in two chunks (%d)", cover.callResultCuts, cover.sharedIDs)
	}
}

// idInputs are the histories TestIDPassesFanoutMatchSequential runs for one
// target and seed: the three damaged mixes and a realistic session with
// foreign turns and stand-ins, all with ids of real lengths.
func idInputs(tg transcript.Target, seed uint64) [][]byte {
	var inputs [][]byte
	for i, d := range []sessiongen.Damage{sessiongen.Heavy(), sessiongen.Issue16(), sessiongen.Realistic()} {
		inputs = append(inputs, sessiongen.New(sessiongen.Config{Seed: 2200 + seed*3 + uint64(i), Messages: 30 + int(seed)*8, ToolCallDensity: 0.8,
			Damage: d, TextChars: 12, ToolResultChars: 8, Target: tg, RealLengthIDs: true}).History())
	}
	inputs = append(inputs, sessiongen.RealShapes(sessiongen.RealConfig{Seed: 2200 + seed, Target: tg, Turns: 3 + int(seed%4),
		Foreign: seed%2 == 0, StandIns: seed%3 == 0, ExtraRoles: seed%2 == 1}).History())
	return inputs
}

// checkIDFanout runs stage s over input sequentially and in k chunks and
// fails unless output, report and error are the same.
func checkIDFanout(t *testing.T, name string, tg transcript.Target, input []byte, s stage.Stage, allow []string, k int) {
	t.Helper()
	seqOut, seqRep, seqErr := runIDStage(t, tg, input, s, allow, nil)
	out, rep, err := runIDStage(t, tg, input, s, allow, fanout.New(k-1, 1))
	if fmt.Sprint(err) != fmt.Sprint(seqErr) {
		t.Fatalf("%s: chunked error %v, sequential %v", name, err, seqErr)
	}
	if !bytes.Equal(out, seqOut) {
		t.Fatalf("%s: chunked output differs\n%s\ninput %s", name, messageDiff(t, seqOut, out), input)
	}
	if !reflect.DeepEqual(rep, seqRep) {
		t.Fatalf("%s: chunked report %+v, sequential %+v", name, rep, seqRep)
	}
}

// runIDStage applies s alone to a fresh decode of input with the given
// allow-list and fanout (nil: sequential), and returns the messages, the
// report and the stage's error.
func runIDStage(t *testing.T, tg transcript.Target, input []byte, s stage.Stage, allow []string, fan stage.Fanout) ([]byte, *stage.Report, error) {
	t.Helper()
	tr, err := transcript.FromMessages(input, transcript.Target(tg))
	if err != nil {
		t.Fatal(err)
	}
	env := chainEnv(tr)
	env.Policy = policy.Resolve(tg)
	env.Settings.Request.AllowedToolNames = allow
	env.Fanout = fan
	err = s.Apply(context.Background(), tr, env)
	return tr.MessagesJSON(), env.Report, err
}

// idCoverage counts the cases of TestIDPassesFanoutMatchSequential that
// need the global resolve: a chunk cut between a call and a result that
// carries its trimmed id, and a trimmed call id that occurs in two chunks.
type idCoverage struct{ callResultCuts, sharedIDs int }

// add counts the cases of input cut into k chunks the way
// stage.ChunkResults cuts it.
func (c *idCoverage) add(t *testing.T, tg transcript.Target, input []byte, k int) {
	t.Helper()
	tr, err := transcript.FromMessages(input, transcript.Target(tg))
	if err != nil {
		t.Fatal(err)
	}
	n := len(tr.Messages)
	k = min(k, n)
	if k < 2 {
		return
	}
	chunkOf := make([]int, n) // chunk c holds messages [c*n/k, (c+1)*n/k)
	for ch := range k {
		for i := ch * n / k; i < (ch+1)*n/k; i++ {
			chunkOf[i] = ch
		}
	}
	callChunks := map[string]map[int]bool{}
	for i, m := range tr.Messages {
		if !m.IsObject() {
			continue
		}
		for _, b := range m.ToolCalls() {
			id, _ := b.CallID()
			id = transcript.TrimID(id)
			if callChunks[id] == nil {
				callChunks[id] = map[int]bool{}
			}
			callChunks[id][chunkOf[i]] = true
		}
		if m.Role() == transcript.RoleToolResult {
			if id, ok := m.ResultID(); ok {
				for ch := range callChunks[id] {
					if ch < chunkOf[i] {
						c.callResultCuts++
						break
					}
				}
			}
		}
	}
	for _, chunks := range callChunks {
		if len(chunks) > 1 {
			c.sharedIDs++
		}
	}
}

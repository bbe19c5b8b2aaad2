package stages

import (
	"context"
	"errors"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/toolcalls"
	"github.com/hygiene-dev/hygiene/internal/stages/turns"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestToolCallIDsTakesTheEarlyProof: the id rule's later run
// (tool_call_ids) takes the early run's proof (env.IDsSanitized) instead of
// a second pass only where that pass would change nothing. Over generated
// histories, damaged and undamaged, for every target, wherever
// tool_call_ids finds the proof standing, the whole id pass run there
// instead (the early rule's Apply, which takes no proof) rewrites no id;
// and the proof is taken (the undamaged histories of the targets whose
// policy runs the early pass), so the check covers the skip.
func TestToolCallIDsTakesTheEarlyProof(t *testing.T) {
	taken := 0
	check := func(t *testing.T, tg transcript.Target, input []byte) {
		if idProofTaken(t, tg, input) {
			taken++
		}
	}
	for _, d := range []struct {
		name   string
		damage sessiongen.Damage
	}{{"undamaged", sessiongen.Damage{}}, {"realistic", sessiongen.Realistic()}, {"heavy", sessiongen.Heavy()}} {
		t.Run(d.name, func(t *testing.T) {
			forGenerated(t, 9100, sessiongen.Config{Damage: d.damage, ToolOutput: 0.5}, check)
		})
	}
	if taken == 0 {
		t.Fatal("tool_call_ids never found the early run's proof: the check covered no skip")
	}
	t.Logf("tool_call_ids took the early proof in %d runs", taken)
}

// idProofTaken runs the default chain on input for tg as the runner does
// and reports whether tool_call_ids found the early id proof standing;
// where it did, it first runs the whole id pass on the history as
// tool_call_ids found it, with a report of its own, and fails the test if
// that pass rewrote anything.
func idProofTaken(t *testing.T, tg transcript.Target, input []byte) bool {
	t.Helper()
	tr, err := transcript.FromMessages(input, tg)
	if err != nil {
		t.Fatal(err)
	}
	env := chainEnv(tr)
	env.Policy = policy.Resolve(tg)
	env.ModelChanged = turns.ModelChanged(tr.CustomEntries, env.Policy)
	var skip stage.Skipper
	took := false
	for _, s := range Default(imgs) {
		if skip.Skip(&s, tr, env) {
			continue
		}
		if _, found := env.FoundUnedited(env.IDsSanitized); found && s.Name == "tool_call_ids" {
			took = true
			pass := *env
			pass.Report = stage.NewReport()
			if err := toolcalls.ToolCallIDsInImagePass().Apply(context.Background(), tr, &pass); err != nil {
				t.Fatal(err)
			}
			if n := pass.Report.Stages.Total("tool_call_ids_early"); n != 0 {
				t.Fatalf("tool_call_ids took the early proof, but its pass rewrites %v\ninput %s", pass.Report.Stages.Of("tool_call_ids_early"), input)
			}
		}
		err := s.Apply(context.Background(), tr, env)
		if _, ok := errors.AsType[*stage.Reject](err); ok {
			return took
		}
		if err != nil {
			t.Fatalf("stage %s: %v", s.Name, err)
		}
	}
	return took
}

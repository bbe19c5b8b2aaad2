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
	checkIDProofs(t, "tool_call_ids", func(env *stage.Env) bool {
		_, found := env.FoundUnedited(env.IDsSanitized)
		return found
	}, func(env *stage.Env) stage.Stage { return toolcalls.ToolCallIDsInImagePass() })
}

// TestToolCallIDsAgainTakesItsProofs: the id rule's again run
// (tool_call_ids_again) takes the again pass of §3.4.3's proof that no
// signed turn lost its thinking (env.SignedTurnsKept), or the later run's
// proof (env.IDsSanitized), instead of a pass only where that pass would
// change nothing: wherever it finds one standing over generated histories,
// the whole id pass run there instead (ToolCallIDs with no proof to take)
// rewrites no id; and a proof is taken, so the check covers the skip.
func TestToolCallIDsAgainTakesItsProofs(t *testing.T) {
	checkIDProofs(t, "tool_call_ids_again", func(env *stage.Env) bool {
		_, kept := env.FoundUnedited(env.SignedTurnsKept)
		_, sanitized := env.FoundUnedited(env.IDsSanitized)
		return kept || sanitized
	}, func(env *stage.Env) stage.Stage {
		env.IDsSanitized = stage.Proof{}
		return toolcalls.ToolCallIDs()
	})
}

// checkIDProofs runs the default chain over generated histories, damaged
// and undamaged, for every target, and wherever the id rule named rule
// finds a proof standing (found), runs the whole pass the proof stands for
// (pass, given a copy of the env to prepare) on the history as rule found
// it, failing the test if that pass rewrote an id; it fails too when no
// run took a proof.
func checkIDProofs(t *testing.T, rule string, found func(*stage.Env) bool, pass func(*stage.Env) stage.Stage) {
	taken := 0
	check := func(t *testing.T, tg transcript.Target, input []byte) {
		if idProofTaken(t, tg, input, rule, found, pass) {
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
		t.Fatalf("%s never found a proof: the check covered no skip", rule)
	}
	t.Logf("%s took a proof in %d runs", rule, taken)
}

// idProofTaken runs the default chain on input for tg as the runner does
// and reports whether rule found its proof standing; where it did, it
// first runs the whole id pass on the history as rule found it, with a
// report of its own, and fails the test if that pass rewrote anything.
func idProofTaken(t *testing.T, tg transcript.Target, input []byte, rule string, found func(*stage.Env) bool, pass func(*stage.Env) stage.Stage) bool {
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
		if s.Name == rule && found(env) {
			took = true
			copied := *env
			copied.Report = stage.NewReport()
			whole := pass(&copied)
			if err := whole.Apply(context.Background(), tr, &copied); err != nil {
				t.Fatal(err)
			}
			if n := copied.Report.Stages.Total(whole.Name); n != 0 {
				t.Fatalf("%s took a proof, but the whole pass rewrites %v\ninput %s", rule, copied.Report.Stages.Of(whole.Name), input)
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

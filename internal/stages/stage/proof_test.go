package stage

import (
	"context"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestProofsHoldOnlyUntilAnEdit: a proof made by one rule holds through
// the ReadOnly rules after it and is set aside by the first rule that may
// edit, whether the runner runs it for its Needs or for RunAll; a rule
// that says it edited nothing (NoEdit) lets the proofs before it stand,
// but not one an earlier editing rule had already set aside; a skipped
// rule sets nothing aside. A rule that may edit finds, in its Apply, the
// proofs that stood when it began (FoundUnedited), though the runner set
// them aside for the rules after it.
func TestProofsHoldOnlyUntilAnEdit(t *testing.T) {
	tr, err := transcript.FromMessages([]byte(`[{"role":"user","content":"hi"}]`), transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var proof Proof
	holds := func(env *Env) bool { _, ok := env.Unedited(proof); return ok }
	prove := Stage{Name: "prove", ReadOnly: true, Apply: func(_ context.Context, _ *transcript.Transcript, env *Env) error {
		proof = env.Prove(7)
		return nil
	}}
	var seen []bool
	look := Stage{Name: "look", ReadOnly: true, Apply: func(_ context.Context, _ *transcript.Transcript, env *Env) error {
		seen = append(seen, holds(env))
		return nil
	}}
	edit := Stage{Name: "edit", Apply: func(context.Context, *transcript.Transcript, *Env) error { return nil }}
	same := Stage{Name: "same", Apply: func(_ context.Context, _ *transcript.Transcript, env *Env) error {
		env.NoEdit()
		return nil
	}}
	// found is a rule that may edit, asking in its Apply whether the
	// history is as the proof saw it when it began (FoundUnedited), then
	// editing.
	found := Stage{Name: "found", Apply: func(_ context.Context, _ *transcript.Transcript, env *Env) error {
		_, ok := env.FoundUnedited(proof)
		seen = append(seen, ok)
		return nil
	}}
	skipped := Stage{Name: "skipped", Needs: transcript.FactToolCall, Apply: edit.Apply}
	for _, tc := range []struct {
		name   string
		chain  []Stage
		runAll bool
		want   []bool
	}{
		{"read-only rules keep it", []Stage{prove, look, look}, false, []bool{true, true}},
		{"an edit sets it aside", []Stage{prove, look, edit, look, look}, false, []bool{true, false, false}},
		{"a rule that edited nothing", []Stage{prove, same, look, same, look}, false, []bool{true, true}},
		{"no edit after an edit", []Stage{prove, edit, same, look}, false, []bool{false}},
		{"a proof after the edit", []Stage{edit, prove, look, edit, look}, false, []bool{true, false}},
		{"a skipped rule", []Stage{prove, skipped, look}, false, []bool{true}},
		{"a rule run for RunAll", []Stage{prove, skipped, look}, true, []bool{false}},
		{"an editing rule finds it", []Stage{prove, found, look}, false, []bool{true, false}},
		{"an editing rule after an edit", []Stage{prove, edit, found}, false, []bool{false}},
		{"an editing rule after no edit", []Stage{prove, same, same, found}, false, []bool{true}},
		{"the second editing rule", []Stage{prove, found, found}, false, []bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proof, seen = Proof{}, nil
			runLooks(t, tc.chain, tr, tc.runAll, &seen, tc.want, "the proof holds")
		})
	}
	if _, ok := (&Env{}).Unedited(Proof{}); ok {
		t.Error("the zero Proof holds")
	}
	if _, ok := (&Env{}).FoundUnedited(Proof{}); ok {
		t.Error("the zero Proof is found")
	}
}

// runLooks runs chain over tr (with RunAll as runAll), whose rules append
// what they saw to *seen, and compares that with want; what names it.
func runLooks[T comparable](t *testing.T, chain []Stage, tr *transcript.Transcript, runAll bool, seen *[]T, want []T, what string) {
	t.Helper()
	if err := Run(context.Background(), chain, tr, &Env{RunAll: runAll}); err != nil {
		t.Fatal(err)
	}
	if len(*seen) != len(want) {
		t.Fatalf("looked %d times, want %d", len(*seen), len(want))
	}
	for i, got := range *seen {
		if got != want[i] {
			t.Errorf("look %d: %s %+v, want %+v", i, what, got, want[i])
		}
	}
}

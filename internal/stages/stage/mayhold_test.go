package stage

import (
	"context"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// MayHold is true until the runner has read the job's facts; then it is
// false for what the job lacks and true for what it holds or what a rule
// that ran declared it may add (Adds) and did not say it edited nothing
// (NoEdit). With RunAll, or for a rule applied
// by itself, it stays true.
func TestMayHoldFollowsTheRunner(t *testing.T) {
	tr, err := transcript.FromMessages([]byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]}]`),
		transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	type seen struct{ compaction, assistant, toolResult bool }
	var got []seen
	look := func(needs, adds transcript.Facts) Stage {
		return Stage{Name: "look", ReadOnly: true, Needs: needs, Adds: adds, Apply: func(_ context.Context, _ *transcript.Transcript, env *Env) error {
			got = append(got, seen{env.MayHold(transcript.FactCompaction), env.MayHold(transcript.FactAssistant), env.MayHold(transcript.FactToolResult)})
			return nil
		}}
	}
	// quiet may add a tool result, but says it edited nothing: what it
	// declared is taken back, and a rule that needs it is skipped.
	quiet := Stage{Name: "quiet", Needs: transcript.FactUser, Adds: transcript.FactToolResult, Apply: func(_ context.Context, _ *transcript.Transcript, env *Env) error {
		got = append(got, seen{env.MayHold(transcript.FactCompaction), env.MayHold(transcript.FactAssistant), env.MayHold(transcript.FactToolResult)})
		env.NoEdit()
		return nil
	}}
	all := seen{true, true, true}
	for _, tc := range []struct {
		name   string
		chain  []Stage
		runAll bool
		want   []seen
	}{
		{"before the facts are read", []Stage{look(0, 0)}, false, []seen{all}},
		{"once a rule's Needs read them", []Stage{look(0, 0), look(transcript.FactAssistant, 0), look(0, 0)}, false,
			[]seen{all, {false, true, false}, {false, true, false}}},
		{"after a rule that may add", []Stage{look(transcript.FactUser, transcript.FactToolResult), look(0, 0)}, false,
			[]seen{{false, true, true}, {false, true, true}}},
		{"after a rule that may add but edited nothing", []Stage{quiet, look(0, 0), look(transcript.FactToolResult, 0)}, false,
			[]seen{{false, true, true}, {false, true, false}}},
		{"RunAll", []Stage{look(transcript.FactAssistant, 0)}, true, []seen{all}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			runLooks(t, tc.chain, tr, tc.runAll, &got, tc.want, "may hold (compaction, assistant, toolResult)")
		})
	}
	if !(&Env{}).MayHold(transcript.FactCompaction) {
		t.Error("an Env no runner used says the job lacks a fact")
	}
}

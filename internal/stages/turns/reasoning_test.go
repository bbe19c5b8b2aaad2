package turns

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

func TestDropThinkingBlocks(t *testing.T) {
	copilot := stagetest.Case{Target: copilotTarget}
	cases := []ruleCase{
		{
			name:   "V44 older thinking removed, latest kept verbatim",
			c:      copilot,
			in:     `[{"role":"assistant","content":[{"type":"thinking","thinking":"x","thinkingSignature":"reasoning_text"},{"type":"text","text":"a"}]},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"y"}]}]`,
			want:   `[{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"y"}]}]`,
			report: map[string]int{"dropped": 1},
		},
		{
			name: "V44 thinking-only older turn gets the omitted-reasoning text",
			c:    copilot,
			in:   `[{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"redacted_thinking","data":"d"}]},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"y"}]},{"role":"user","content":"r"}]`,
			want: `[{"role":"assistant","content":` + omitted + `},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"y"}]},{"role":"user","content":"r"}]`,
		},
		{
			name: "the latest is the latest with array content",
			c:    copilot,
			in:   `[{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]},{"role":"assistant","content":"str"}]`,
			want: `[{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]},{"role":"assistant","content":"str"}]`,
		},
		{
			name: "policy off (Claude 4 on Anthropic): unchanged",
			in:   `[{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"b"}]}]`,
			want: `[{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"b"}]}]`,
		},
	}
	runCases(t, cases, DropThinkingBlocks())
}

// runWithPolicy applies one stage under a hand-made policy (no row of the
// spec's tables sets DropReasoningFromHistory).
func runWithPolicy(t *testing.T, p policy.Policy, in string, st stage.Stage) []byte {
	t.Helper()
	tr, err := transcript.FromMessages([]byte(in), transcript.Target{Provider: p.Provider, API: p.API, Model: p.Model})
	if err != nil {
		t.Fatal(err)
	}
	env := &stage.Env{Policy: p, Report: stage.NewReport()}
	if err := st.Apply(t.Context(), tr, env); err != nil {
		t.Fatal(err)
	}
	return tr.MessagesJSON()
}

func TestDropReasoningFromHistory(t *testing.T) {
	p := policy.Resolve(vllmTarget)
	p.DropReasoningFromHistory = true
	for _, tc := range []struct{ name, in, want string }{
		{
			name: "all thinking removed, current-turn tool call kept",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"text","text":"x"}]},{"role":"user","content":"r"},{"role":"assistant","content":[{"type":"thinking","thinking":"b"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"ok"}]}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"x"}]},{"role":"user","content":"r"},{"role":"assistant","content":[{"type":"thinking","thinking":"b"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"ok"}]}]`,
		},
		{
			name: "a second assistant in the turn is not the current tool call; emptied content gets the text",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":[]},{"role":"assistant","content":[{"type":"thinking","thinking":"b"}]}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":[]},{"role":"assistant","content":` + omitted + `}]`,
		},
		{
			name: "a tool call without a result is not kept",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}]`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runWithPolicy(t, p, tc.in, DropReasoningFromHistory())
			stagetest.Equal(t, got, tc.want)
			if again := runWithPolicy(t, p, string(got), DropReasoningFromHistory()); string(again) != string(got) {
				t.Errorf("not idempotent: %s", again)
			}
		})
	}
	in := `[{"role":"assistant","content":[{"type":"thinking","thinking":"a"}]}]`
	stagetest.Equal(t, runWithPolicy(t, policy.Resolve(vllmTarget), in, DropReasoningFromHistory()), in)
}

func FuzzDropThinkingBlocks(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"y"}]}]`,
	}, DropThinkingBlocks())
}

func FuzzDropReasoningFromHistory(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":[]}]`))
	p := policy.Resolve(vllmTarget)
	p.DropReasoningFromHistory = true
	f.Fuzz(func(t *testing.T, in []byte) {
		if _, err := transcript.FromMessages(in, transcript.Target(vllmTarget)); err != nil {
			return
		}
		first := runWithPolicy(t, p, string(in), DropReasoningFromHistory())
		if again := runWithPolicy(t, p, string(in), DropReasoningFromHistory()); string(again) != string(first) {
			t.Fatalf("not deterministic")
		}
		if second := runWithPolicy(t, p, string(first), DropReasoningFromHistory()); string(second) != string(first) {
			t.Fatalf("not idempotent:\n%s\n%s", first, second)
		}
	})
}

package sendable

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

func apply(t testing.TB, s stage.Stage, tg transcript.Target, mode settings.ContractMode, msgs []byte, env0 stage.Env) (*transcript.Transcript, *stage.Env, error) {
	t.Helper()
	tr, err := transcript.FromMessages(msgs, transcript.Target(tg))
	if err != nil {
		return nil, nil, err
	}
	env := env0
	env.Policy, env.Report = policy.Resolve(tg), stage.NewReport()
	env.Settings.ContractMode = mode
	return tr, &env, s.Apply(context.Background(), tr, &env)
}

func TestEmptyHistory(t *testing.T) {
	tests := []struct {
		name, in string
		input    int
		changes  map[string]map[string]int
		says     string
	}{
		{"a user turn is left", `[{"role":"user","content":"hi"}]`, 1, nil, ""},
		{"a summary counts as a user turn", `[{"role":"compactionSummary","summary":"s"}]`, 1, nil, ""},
		{"no messages in the job", `[]`, 0, nil, "messages: the job has no messages, so there is nothing to send"},
		{"all removed", `[]`, 4, map[string]map[string]int{"tool_result_pairing": {"dropped_orphans": 3}, "assistant_replay": {"dropped": 1}},
			"messages: nothing left to send: the repair removed all 4 input messages; the rules changed: assistant_replay dropped 1, tool_result_pairing dropped_orphans 3"},
		{"no user turn left", `[{"role":"assistant","content":[{"type":"text","text":"a"}]}]`, 2, map[string]map[string]int{"inter_session": {"dropped": 1}},
			"messages: nothing left to send: no user turn is left of 2 input messages (1 remain, none from the user); the rules changed: inter_session dropped 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := transcript.FromMessages([]byte(tc.in), transcript.Target(stagetest.Anthropic))
			if err != nil {
				t.Fatal(err)
			}
			env := &stage.Env{Policy: policy.Resolve(stagetest.Anthropic), Report: stage.NewReport(), InputMessages: tc.input}
			for st, kinds := range tc.changes {
				for what, n := range kinds {
					env.Report.Add(st, what, n)
				}
			}
			err = EmptyHistory().Apply(context.Background(), tr, env)
			if tc.says == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			var rej *stage.Reject
			if !errors.As(err, &rej) || rej.Code != deadletter.CodeEmptyHistory || rej.Msg != tc.says {
				t.Fatalf("got %v\nwant empty_history: %s", err, tc.says)
			}
		})
	}
}

func TestContractModes(t *testing.T) {
	in := []byte(`[{"role":"user","content":"cut \ud83d"},{"role":"assistant","content":[{"type":"toolCall","id":"c|1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c|1","content":"x"}]`)
	_, env, err := apply(t, Contract(), stagetest.Anthropic, settings.ContractReject, in, stage.Env{})
	var rej *stage.Reject
	if !errors.As(err, &rej) || rej.Code != deadletter.CodeUnsendable ||
		rej.Msg != `messages[0]: lone UTF-16 surrogate \ud83d (3 violations: text_validity 1, tool_call_id 2)` {
		t.Fatalf("reject mode: %v", err)
	}
	if c := env.Report.Contract; c == nil || c.ByRule["text_validity"] != 1 || len(c.Violations) != 3 {
		t.Fatalf("report %+v", env.Report.Contract)
	}
	tr, env, err := apply(t, Contract(), stagetest.Anthropic, settings.ContractReport, in, stage.Env{})
	if err != nil || env.Report.Contract == nil || string(tr.MessagesJSON()) != string(in) {
		t.Fatalf("report mode: err %v, report %+v", err, env.Report.Contract)
	}
	// The same transcript is fine for a passthrough.
	if _, env, err := apply(t, Contract(), transcript.Target{Provider: "acme", API: "acme-chat"}, "", []byte(`[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"toolCall","id":"c|1","name":"read","arguments":{}}]}]`), stage.Env{}); err != nil || env.Report.Contract != nil {
		t.Fatalf("passthrough: %v %+v", err, env.Report.Contract)
	}
}

// FuzzContract: any message array, for any family, in both modes: no
// panic; reject mode returns nil or an unsendable Reject that names the
// first violation; report mode never errs and never edits; both agree with
// contract.Check; two runs give the same verdict.
func FuzzContract(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":"hi"}]`), uint8(0))
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"toolCall","id":"a|b","name":"x.y"},{"type":"image","data":"iVBORw0KGgo="}]},{"role":"user","content":"\ud800"}]`), uint8(3))
	f.Add([]byte(`[]`), uint8(7))
	targets := []transcript.Target{
		stagetest.Anthropic,
		{Provider: "anthropic-vertex", API: "anthropic-messages", Model: "claude-sonnet-4"},
		{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4"},
		{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
		{Provider: "openai", API: "openai-responses", Model: "gpt-5"},
		{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"},
		{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large"},
		{Provider: "acme", API: "acme-chat"},
	}
	f.Fuzz(func(t *testing.T, msgs []byte, which uint8) {
		if len(msgs) > 1<<16 {
			return
		}
		tg := targets[int(which)%len(targets)]
		tr, env, err := apply(t, Contract(), tg, settings.ContractReject, msgs, stage.Env{})
		if tr == nil {
			return // not a message array
		}
		want := contract.Check(tr.Messages, env.Policy.Contract, 0)
		var rej *stage.Reject
		switch {
		case want.OK() && err != nil:
			t.Fatalf("rejected a transcript Check passes: %v", err)
		case !want.OK() && (!errors.As(err, &rej) || rej.Code != deadletter.CodeUnsendable || !strings.HasPrefix(rej.Msg, want.Violations[0].String())):
			t.Fatalf("got %v, want unsendable naming %s", err, want.Violations[0])
		}
		tr2, env2, err2 := apply(t, Contract(), tg, settings.ContractReport, msgs, stage.Env{})
		if err2 != nil || string(tr2.MessagesJSON()) != string(tr.MessagesJSON()) || (env2.Report.Contract == nil) != want.OK() {
			t.Fatalf("report mode: err %v, report %+v", err2, env2.Report.Contract)
		}
	})
}

package wire

import (
	"maps"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestNamedParts: parts the model has no block for are named by a rule,
// not read as "unknown" or as user text. Issue 29 item 7, each failing on
// 0988e1e: Mistral's thinking chunks were unknown_part (now unsigned
// thinking, as reasoning_content: not sent, the chain decides); Anthropic's
// tool_reference blocks were unknown_part (now tool_reference: the tool is
// declared whole); a beta mid-conversation system message became a user
// message and its tool_addition an unknown part (now its text joins the
// system prompt and the tool change is counted as tool_change).
func TestNamedParts(t *testing.T) {
	src := transcript.Target{Provider: "mistral", API: "mistral-conversations", Model: "magistral-medium-latest"}
	cases := []struct {
		name     string
		f        Format
		body     string
		contains []string // in the messages
		absent   []string // not in the messages
		system   string
		dropped  map[string]int
	}{
		{"mistral thinking chunks", MistralChat,
			`{"model":"magistral-medium-latest","messages":[{"role":"user","content":"How many r in strawberry?"},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Count the letters: s-t-r-a-w-b-e-r-r-y."},{"type":"text","text":" Three."}]},{"type":"text","text":"There are 3."}]},` +
				`{"role":"user","content":"And in raspberry?"}]}`,
			[]string{`{"type":"thinking","thinking":"Count the letters: s-t-r-a-w-b-e-r-r-y.\n\n Three."}`}, nil, "", nil},
		{"anthropic tool_reference in a tool result", AnthropicMessages,
			`{"messages":[{"role":"user","content":"What is the weather in Paris?"},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01R5aKF6m6HuSNWJ1bp1A8B8","name":"tool_search","input":{"query":"weather"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01R5aKF6m6HuSNWJ1bp1A8B8","content":[{"type":"tool_reference","tool_name":"get_weather"}]}]}],` +
				`"tools":[{"name":"tool_search","input_schema":{"type":"object","properties":{"query":{"type":"string"}}}},{"name":"get_weather","input_schema":{"type":"object"},"defer_loading":true}]}`,
			[]string{`"toolCallId":"toolu_01R5aKF6m6HuSNWJ1bp1A8B8"`}, []string{"tool_reference"}, "", map[string]int{LossToolReference: 1}},
		{"anthropic mid-conversation system message", AnthropicMessages,
			`{"system":"You are a coding agent.","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello."},` +
				`{"role":"system","content":[{"type":"text","text":"Tools changed."},{"type":"tool_addition","tool":{"type":"tool_reference","name":"Grep"}},{"type":"tool_removal","tool":{"type":"tool_reference","name":"Read"}}]},` +
				`{"role":"user","content":"grep for TODO"}]}`,
			nil, []string{"Tools changed."}, `[{"type":"text","text":"You are a coding agent."},{"type":"text","text":"Tools changed."}]`, map[string]int{LossToolChange: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(c.f, []byte(c.body), src, c.f)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.contains {
				if !strings.Contains(string(p.Messages), s) {
					t.Errorf("messages lack %s\n%s", s, p.Messages)
				}
			}
			for _, s := range c.absent {
				if strings.Contains(string(p.Messages), s) {
					t.Errorf("messages hold %s\n%s", s, p.Messages)
				}
			}
			if c.system != "" && string(p.System) != c.system {
				t.Errorf("system %s, want %s", p.System, c.system)
			}
			if len(p.Dropped)+len(c.dropped) > 0 && !maps.Equal(p.Dropped, c.dropped) {
				t.Errorf("dropped %v, want %v", p.Dropped, c.dropped)
			}
		})
	}
}

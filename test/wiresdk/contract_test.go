package wiresdk

import (
	"encoding/json"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// TestBodiesMeetContract: besides the SDK round trip, every final-turn
// golden and every generated body passes the contract's body rules (final
// turn, system, tool names as sent) for its model.
func TestBodiesMeetContract(t *testing.T) {
	bodies := append(finalBodies(t), generatedBodies(t, 4)...)
	for _, b := range bodies {
		res, err := contract.CheckBody(b.format, b.json, b.model)
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		if !res.OK() {
			t.Errorf("%s (%s, %s): %s", b.name, b.format, b.model, res.Summary())
		}
	}
}

// breakage edits a decoded body so that it breaks one rule; false when the
// body has nothing the edit applies to.
type breakage struct {
	rule string
	edit func(f wire.Format, v map[string]any, model string) bool
}

// breakages are the deliberate faults, one per body rule.
var breakages = []breakage{
	{contract.RuleToolName, func(f wire.Format, v map[string]any, _ string) bool {
		tools, _ := v["tools"].([]any)
		if f == wire.BedrockConverse {
			tc, _ := v["toolConfig"].(map[string]any)
			tools, _ = tc["tools"].([]any)
		}
		if len(tools) == 0 {
			return false
		}
		tool, _ := tools[0].(map[string]any)
		switch f {
		case wire.BedrockConverse:
			tool, _ = tool["toolSpec"].(map[string]any)
		case wire.OpenAIChat, wire.MistralChat:
			tool, _ = tool["function"].(map[string]any)
		case wire.GeminiContents:
			decls, _ := tool["functionDeclarations"].([]any)
			tool, _ = decls[0].(map[string]any)
		}
		tool["name"] = "github/create_issue" // a slash: no format takes it
		return true
	}},
	{contract.RuleSystem, func(f wire.Format, v map[string]any, _ string) bool {
		sys, _ := v["system"].([]any)
		if (f != wire.AnthropicMessages && f != wire.BedrockConverse) || len(sys) == 0 {
			return false
		}
		sys[0].(map[string]any)["text"] = ""
		return true
	}},
	{contract.RuleFinalTurn, func(f wire.Format, v map[string]any, model string) bool {
		if f.Prefill(model).Prefill == contract.PrefillAccepted {
			return false
		}
		key := map[wire.Format]string{wire.GeminiContents: "contents", wire.OpenAIResponses: "input"}[f]
		if key == "" {
			key = "messages"
		}
		turns, _ := v[key].([]any)
		if len(turns) < 2 {
			return false
		}
		before, _ := turns[len(turns)-2].(map[string]any)
		if before["role"] != "assistant" || before["tool_calls"] != nil {
			return false
		}
		v[key] = turns[:len(turns)-1] // the body without the runner's next turn
		return true
	}},
}

// TestBrokenBodiesFailTheRightRule: each final-turn golden, broken on
// purpose one rule at a time, fails that rule and no other.
func TestBrokenBodiesFailTheRightRule(t *testing.T) {
	broken := map[string]int{}
	for _, b := range finalBodies(t) {
		for _, bk := range breakages {
			var v map[string]any
			if err := json.Unmarshal(b.json, &v); err != nil {
				t.Fatal(err)
			}
			if !bk.edit(b.format, v, b.model) {
				continue
			}
			js, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			res, err := contract.CheckBody(b.format, js, b.model)
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != 1 || res.Counts[bk.rule] != 1 {
				t.Errorf("%s broken for %s: %s", b.name, bk.rule, res.Summary())
			}
			broken[bk.rule]++
		}
	}
	for _, bk := range breakages {
		if broken[bk.rule] == 0 {
			t.Errorf("no body was broken for %s", bk.rule)
		}
	}
	t.Logf("broken bodies per rule: %v", broken)
}

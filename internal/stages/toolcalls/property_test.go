package toolcalls

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// propertyTargets covers every row of spec §2.2 and §2.3 (and the §2.4
// Mistral model-id fallback).
var propertyTargets = []transcript.Target{
	{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
	{Provider: "openai", API: "openai-responses", Model: "gpt-5"},
	{Provider: "openai-codex", API: "openai-codex-responses", Model: "gpt-5-codex"},
	{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"},
	{Provider: "anthropic", API: "anthropic-messages", Model: "claude-3-7-sonnet"},
	{Provider: "anthropic-vertex", API: "anthropic-messages", Model: "claude-sonnet-4-5"},
	{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4-5"},
	{Provider: "bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-5-sonnet"},
	{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"},
	{Provider: "google-gemini-cli", API: "google-gemini-cli", Model: "gemini-2.5-pro"},
	{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"},
	{Provider: "openrouter", API: "openai-completions", Model: "google/gemini-2.5-pro"},
	{Provider: "opencode", API: "openai-responses", Model: "gpt-5"},
	{Provider: "kilocode", API: "anthropic-messages", Model: "claude-opus-4-6"},
	{Provider: "github-copilot", API: "anthropic-messages", Model: "claude-sonnet-4"},
	{Provider: "github-copilot", API: "openai-completions", Model: "gpt-4.1"},
	{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2"},
	{Provider: "minimax", API: "openai-completions", Model: "MiniMax-M2"},
	{Provider: "kimi-coding", API: "anthropic-messages", Model: "k2"},
	{Provider: "arcee", API: "openai-completions", Model: "trinity"},
	{Provider: "fireworks", API: "openai-responses", Model: "llama"},
	{Provider: "moonshot", API: "openai-completions", Model: "kimi-k2"},
	{Provider: "moonshot", API: "openai-responses", Model: "kimi-k2"},
	{Provider: "xai", API: "azure-openai-responses", Model: "grok-4"},
	{Provider: "zai", API: "mistral-conversations", Model: "glm"},
	{Provider: "vllm", API: "google-generative-ai", Model: "gemma"},
	{Provider: "custom", API: "anthropic-messages", Model: "claude-opus-4-6"},
	{Provider: "custom", API: "bedrock-converse-stream", Model: "llama"},
	{Provider: "vllm", API: "openai-completions", Model: "qwen"},
	{Provider: "custom", API: "openai-responses", Model: "gpt-oss"},
	{Provider: "custom", API: "azure-openai-responses", Model: "gpt-5"},
	{Provider: "custom", API: "custom-api", Model: "codestral-latest"},
	{Provider: "unknown", API: "", Model: "x"},
}

// oddIDs are ids that collide after sanitising, exceed limits, or are
// otherwise awkward.
var oddIDs = []string{
	"call_1", "call_1|fc_1", "call_a|b", "call_a:b", "edit:22", "toolu_01AbC", "toolu_01AbC",
	"toolu_" + strings.Repeat("Q", 70), "functions.read:0", "functions.exec:12", strings.Repeat("a", 50),
	strings.Repeat("a", 50) + "_", strings.Repeat("x", 70), " padded ", "padded", "call_abc", "callabc",
	"___", "ïd-ü", "id with space", "c1", "C1", "c12", "abcdefghi", "abcdefghij", "callitem1",
	"call_" + strings.Repeat("z", 60) + "|fc_" + strings.Repeat("9", 10), "t1", "t1", "t12", "callxtoolresult1",
}

// genHistory builds a random history: users, assistants with calls (some
// with signed thinking), results (some padded, displaced, duplicated,
// synthetic, orphaned, with several id members), and null entries.
func genHistory(rng *rand.Rand, n int) string {
	var msgs []string
	var recent []string
	pick := func() string {
		if len(recent) > 0 && rng.IntN(3) > 0 {
			return recent[rng.IntN(len(recent))]
		}
		if rng.IntN(4) == 0 {
			return randomID(rng)
		}
		return oddIDs[rng.IntN(len(oddIDs))]
	}
	for len(msgs) < n {
		switch r := rng.IntN(10); {
		case r < 2:
			msgs = append(msgs, `{"role":"user","content":"u"}`)
		case r < 5:
			var blocks []string
			if rng.IntN(3) == 0 {
				blocks = append(blocks, `{"type":"thinking","thinking":"t","thinkingSignature":"EqQ"}`)
			}
			recent = recent[:0]
			for k := rng.IntN(4); k >= 0; k-- {
				id := pick()
				if rng.IntN(3) == 0 {
					id = oddIDs[rng.IntN(len(oddIDs))]
				}
				recent = append(recent, id)
				typ := []string{"toolCall", "toolUse", "functionCall"}[rng.IntN(3)]
				name := []string{"read", "exec", "write", "edit"}[rng.IntN(4)]
				payload := `,"arguments":{}`
				switch rng.IntN(12) {
				case 0:
					payload = "" // no input: input validation drops it
				case 1:
					name = " bad name"
				case 2:
					payload += `,"partialJson":"{"`
				}
				blocks = append(blocks, fmt.Sprintf(`{"type":%q,"id":%s,"name":%q%s}`, typ, jsonStr(id), name, payload))
			}
			msgs = append(msgs, `{"role":"assistant","stopReason":"toolUse","content":[`+strings.Join(blocks, ",")+`]}`)
		case r < 9:
			id := pick()
			if rng.IntN(5) == 0 {
				id = " " + id + " "
			}
			fields := []string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"}
			var members []string
			for k := rng.IntN(2); k >= 0; k-- {
				members = append(members, fmt.Sprintf(`%q:%s`, fields[rng.IntN(len(fields))], jsonStr(id)))
			}
			if rng.IntN(6) == 0 {
				members = append(members, `"isError":true,"details":{"openclawSyntheticMissingToolResult":true}`)
			}
			msgs = append(msgs, `{"role":"toolResult",`+strings.Join(dedupeMembers(members), ",")+`,"content":"r"}`)
		default:
			msgs = append(msgs, `null`)
		}
	}
	return "[" + strings.Join(msgs, ",") + "]"
}

// randomID returns 1–90 bytes from an alphabet with odd characters.
func randomID(rng *rand.Rand) string {
	const alphabet = "abcXYZ019_-|:.é "
	n := 1 + rng.IntN(90)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(string([]rune(alphabet)[rng.IntN(len([]rune(alphabet)))]))
	}
	return b.String()
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// dedupeMembers drops repeated keys (a JSON object must not repeat one).
func dedupeMembers(members []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range members {
		key := m[:strings.Index(m, ":")]
		if !seen[key] {
			seen[key] = true
			out = append(out, m)
		}
	}
	return out
}

// TestToolCallIDsProperties runs seeded random histories through the id
// rules for every provider row and checks: every call and result id is one
// the target accepts (for OpenAI Responses: the call_id part), call ids are unique where the mode requires it, every
// result paired with a call before is paired with the same call after, and
// the stage properties (deterministic, idempotent, early+late = late).
func TestToolCallIDsProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261130, 42))
	runs := 60
	if testing.Short() {
		runs = 20
	}
	for _, target := range propertyTargets {
		p := policy.Resolve(target)
		t.Run(target.String(), func(t *testing.T) {
			for run := 0; run < runs; run++ {
				in := genHistory(rng, 4+rng.IntN(40))
				c := stagetest.Case{Target: target}
				res := c.Apply(t, in, ToolCallIDs())
				checkIDProperties(t, p, in, res.JSON)
				both := c.Apply(t, in, ToolCallIDsInImagePass(), ToolCallIDs())
				if string(both.JSON) != string(res.JSON) {
					t.Fatalf("early+late differs from late alone\n  in: %s\nboth: %s\nlate: %s", in, both.JSON, res.JSON)
				}
				c.CheckProperties(t, []byte(in), ToolCallIDs())
				if t.Failed() {
					t.Fatalf("input: %s", in)
				}
			}
		})
	}
}

// checkIDProperties checks one output against its input.
func checkIDProperties(t *testing.T, p policy.Policy, in string, out []byte) {
	t.Helper()
	var before, after []any
	if err := json.Unmarshal([]byte(in), &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &after); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if len(before) != len(after) {
		t.Fatalf("message count changed: %d → %d", len(before), len(after))
	}
	unique := p.SanitizeToolCallIDs && p.ToolCallIDMode != policy.IDModeNone
	seen := map[string]bool{}
	for _, m := range after {
		obj, _ := m.(map[string]any)
		switch obj["role"] {
		case "assistant":
			blocks, _ := obj["content"].([]any)
			for _, b := range blocks {
				blk, _ := b.(map[string]any)
				id, ok := blk["id"].(string)
				if !ok || id == "" {
					continue
				}
				if !accepts(p, id) {
					t.Errorf("call id %q is not accepted by %+v", id, p.IDLimits)
				}
				if unique && seen[id] {
					t.Errorf("call id %q repeats in %s mode", id, p.ToolCallIDMode)
				}
				seen[id] = true
			}
		case "toolResult":
			for _, k := range transcript.ResultIDFields {
				if s, ok := obj[k].(string); ok && strings.TrimSpace(s) != "" && !accepts(p, s) {
					t.Errorf("result id %s=%q is not accepted by %+v", k, s, p.IDLimits)
				}
			}
		}
	}
	pb, pa := refPairing(before), refPairing(after)
	for res, call := range pb {
		if got, ok := pa[res]; !ok || got != call {
			t.Errorf("result at %d was paired with call %v, now with %v (paired=%v)", res, call, got, ok)
		}
	}
}

// TestToolCallIDsCancelled checks that a cancelled context stops the rule.
func TestToolCallIDsCancelled(t *testing.T) {
	tr, err := transcript.FromMessages([]byte(genHistory(rand.New(rand.NewPCG(1, 2)), 10)), transcript.Target(anthropic))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env := &stage.Env{Policy: policy.Resolve(anthropic), Report: stage.NewReport()}
	for _, s := range []stage.Stage{ToolCallInputs(), ToolCallIDs(), StripDetails()} {
		if err := s.Apply(ctx, tr, env); err == nil {
			t.Errorf("%s ignored a cancelled context", s.Name)
		}
	}
}

// TestToolCallInputsProperties runs seeded random histories through input
// validation with and without immutable signed replay and an allow-list, and
// checks the stage properties, that no tool result is created or removed,
// and that every call left was in the input with the same id.
func TestToolCallInputsProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	targets := []transcript.Target{anthropic, bedrock, google, responses, mistral}
	for run := 0; run < 150; run++ {
		in := genHistory(rng, 4+rng.IntN(40))
		for _, target := range targets {
			c := stagetest.Case{Target: target, Settings: fuzzSettings}
			res := c.Apply(t, in, ToolCallInputs())
			c.CheckProperties(t, []byte(in), ToolCallInputs())
			before, after := callsAndResults(t, []byte(in)), callsAndResults(t, res.JSON)
			if before.results != after.results {
				t.Fatalf("%s: tool results %d → %d\n in: %s\nout: %s", target, before.results, after.results, in, res.JSON)
			}
			for id, n := range after.calls {
				if before.calls[id] < n {
					t.Fatalf("%s: call %q appears %d times, %d before", target, id, n, before.calls[id])
				}
			}
		}
	}
}

// census counts the calls by id and the tool results of a history.
type census struct {
	calls   map[string]int
	results int
}

func callsAndResults(t *testing.T, data []byte) census {
	t.Helper()
	var msgs []any
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatal(err)
	}
	c := census{calls: map[string]int{}}
	for _, m := range msgs {
		obj, _ := m.(map[string]any)
		if obj["role"] == "toolResult" {
			c.results++
		}
		blocks, _ := obj["content"].([]any)
		for _, b := range blocks {
			if blk, _ := b.(map[string]any); blk["type"] != nil && blk["name"] != nil {
				id, _ := blk["id"].(string)
				c.calls[id]++
			}
		}
	}
	return c
}

package sessiongen

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// callIDShapes are the id shapes of docs/real-shapes.md, by the API (and
// provider) of the turn that holds the call.
var callIDShapes = map[string]*regexp.Regexp{
	"anthropic-messages":      regexp.MustCompile(`^toolu_01[A-Za-z0-9]{22}$`),
	"minimax":                 regexp.MustCompile(`^call_function_[a-z0-9]{12}_[1-9]$`),
	"bedrock-converse-stream": regexp.MustCompile(`^tooluse_[A-Za-z0-9]{22}$`),
	"openai-responses":        regexp.MustCompile(`^call_[A-Za-z0-9]{24}\|fc_[0-9a-f]{50}$`),
	"openai-codex-responses":  regexp.MustCompile(`^call_[A-Za-z0-9]{24}\|fc_[0-9a-f]{50}$`),
	"openai-completions":      regexp.MustCompile(`^call_[A-Za-z0-9]{24}$`),
	"openrouter":              regexp.MustCompile(`^chatcmpl-tool-[0-9a-f]{32}$`),
	"google-generative-ai":    regexp.MustCompile(`^[a-z_]+_[0-9]{13}_[0-9]+$`),
	"mistral-conversations":   regexp.MustCompile(`^[A-Za-z0-9]{9}$`),
}

type realMsg struct {
	Role       string            `json:"role"`
	API        string            `json:"api"`
	Provider   string            `json:"provider"`
	StopReason string            `json:"stopReason"`
	ToolCallID string            `json:"toolCallId"`
	Content    json.RawMessage   `json:"content"`
	Raw        json.RawMessage   `json:"-"`
	Blocks     []json.RawMessage `json:"-"`
}

func parseReal(t *testing.T, data []byte) []realMsg {
	t.Helper()
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		t.Fatalf("not a JSON array: %v", err)
	}
	out := make([]realMsg, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			t.Fatal(err)
		}
		out[i].Raw = raw
		_ = json.Unmarshal(out[i].Content, &out[i].Blocks)
	}
	return out
}

// TestRealShapesDeterministic: the same config gives the same bytes, for
// histories and session files; another seed gives other bytes.
func TestRealShapesDeterministic(t *testing.T) {
	for _, tg := range RealAPIs {
		cfg := RealConfig{Seed: 9, Target: tg, Foreign: true, StandIns: true, ExtraRoles: true}
		if a, b := RealShapes(cfg).History(), RealShapes(cfg).History(); !bytes.Equal(a, b) {
			t.Fatalf("%s: two histories of one config differ", tg.API)
		}
		for v := 1; v <= 3; v++ {
			if a, b := RealShapes(cfg).SessionFile(v), RealShapes(cfg).SessionFile(v); !bytes.Equal(a, b) {
				t.Fatalf("%s: two v%d session files of one config differ", tg.API, v)
			}
		}
		cfg.Seed++
		if a, b := RealShapes(RealConfig{Seed: 9, Target: tg}).History(), RealShapes(cfg).History(); bytes.Equal(a, b) {
			t.Fatalf("%s: seeds 9 and 10 give the same history", tg.API)
		}
	}
	a, b := RealCorpus(3, 7), RealCorpus(3, 7)
	if len(a) != 7 {
		t.Fatalf("RealCorpus(3, 7) gave %d files", len(a))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Fatalf("RealCorpus differs for %s", name)
		}
	}
}

// TestRealShapesIDsAndLeftovers checks every generated history against the
// survey: each call's id has the shape of the runtime that wrote its turn,
// Responses calls keep partialJson equal to their arguments, Gemini calls a
// thoughtSignature, every call has complete arguments and exactly one result
// right after its turn, and the history ends with the assistant's answer.
func TestRealShapesIDsAndLeftovers(t *testing.T) {
	targets := append([]transcript.Target{
		{Provider: "openrouter", API: "openai-completions", Model: "openrouter/auto"},
		{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2.7"},
	}, RealAPIs...)
	seen := map[string]bool{}
	for _, tg := range targets {
		for seed := range uint64(6) {
			ms := parseReal(t, RealShapes(RealConfig{Seed: seed, Target: tg, Turns: 8, Foreign: seed%2 == 1, StandIns: true, ExtraRoles: true}).History())
			if last := ms[len(ms)-1]; last.Role != "assistant" || last.StopReason != "stop" {
				t.Fatalf("%s seed %d: the history ends with %s/%s", tg.API, seed, last.Role, last.StopReason)
			}
			results := map[string]int{}
			for _, m := range ms {
				if m.Role == "toolResult" {
					results[m.ToolCallID]++
				}
			}
			for i, m := range ms {
				if m.Role != "assistant" {
					continue
				}
				var pending []string
				for _, raw := range m.Blocks {
					var b struct {
						Type, ID, PartialJSON, ThoughtSignature string
						Arguments                               json.RawMessage
					}
					_ = json.Unmarshal(raw, &b)
					if b.Type != "toolCall" {
						continue
					}
					key := m.API
					if m.Provider == "minimax" || m.Provider == "openrouter" {
						key = m.Provider
					}
					re := callIDShapes[key]
					if re == nil || !re.MatchString(b.ID) {
						t.Fatalf("%s seed %d: call id %q of a %s/%s turn has not the surveyed shape", tg.API, seed, b.ID, m.Provider, m.API)
					}
					seen[key] = true
					if len(b.Arguments) < 2 || b.Arguments[0] != '{' {
						t.Fatalf("call %s has no complete arguments", b.ID)
					}
					if strings.Contains(m.API, "responses") && b.PartialJSON != string(b.Arguments) {
						t.Fatalf("Responses call %s: partialJson %q is not its arguments %s", b.ID, b.PartialJSON, b.Arguments)
					}
					if m.API == "google-generative-ai" && b.ThoughtSignature == "" {
						t.Fatalf("Gemini call %s has no thoughtSignature", b.ID)
					}
					if results[b.ID] != 1 {
						t.Fatalf("call %s has %d results", b.ID, results[b.ID])
					}
					pending = append(pending, b.ID)
				}
				for k, id := range pending {
					if r := ms[i+1+k]; r.Role != "toolResult" || r.ToolCallID != id {
						t.Fatalf("the result of %s is not right after its turn", id)
					}
				}
			}
		}
	}
	for key := range callIDShapes {
		if !seen[key] {
			t.Errorf("no generated call had the %s shape", key)
		}
	}
}

// TestRealShapesStandInsAndRoles: the stand-ins and extra roles are there
// when asked for, and absent otherwise.
func TestRealShapesStandInsAndRoles(t *testing.T) {
	all := string(RealShapes(RealConfig{Seed: 4, StandIns: true, ExtraRoles: true}).History())
	for _, want := range []string{`"model":"delivery-mirror"`, `"model":"gateway-injected"`, `"stopReason":"error"`, `"errorMessage":`,
		`"text":"NO_REPLY"`, `"role":"bashExecution"`, `"role":"custom"`, `"details":`} {
		if !strings.Contains(all, want) {
			t.Errorf("history with stand-ins and extra roles lacks %s", want)
		}
	}
	ms := parseReal(t, RealShapes(RealConfig{Seed: 4, MirrorLast: true}).History())
	last, answer := ms[len(ms)-1], ms[len(ms)-2]
	if !strings.Contains(string(last.Raw), `"model":"delivery-mirror"`) || answer.Role != "assistant" || answer.Provider != "anthropic" {
		t.Errorf("MirrorLast: the history ends with %s after %s", last.Raw, answer.Raw)
	}
	plain := string(RealShapes(RealConfig{Seed: 4}).History())
	for _, no := range []string{`"provider":"openclaw"`, `"stopReason":"error"`, `NO_REPLY`, `"role":"bashExecution"`, `"role":"custom"`} {
		if strings.Contains(plain, no) {
			t.Errorf("plain history holds %s", no)
		}
	}
}

// TestSessionFileVersions checks the three header versions: v1 has no ids
// and a firstKeptEntryIndex that points at a user message line; v2 and v3
// are trees with a firstKeptEntryId on the active branch, a branch summary
// and an abandoned branch; v2 says hookMessage where v3 says custom; v2 and
// v3 decode to a transcript that starts with the compaction summary.
func TestSessionFileVersions(t *testing.T) {
	for v := 1; v <= 3; v++ {
		data := RealShapes(RealConfig{Seed: 5, Turns: 7, ExtraRoles: true, StandIns: true}).SessionFile(v)
		lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		var header map[string]any
		if err := json.Unmarshal(lines[0], &header); err != nil || header["type"] != "session" {
			t.Fatalf("v%d: bad header %s", v, lines[0])
		}
		entries := make([]map[string]any, len(lines))
		var compaction map[string]any
		for i, l := range lines {
			if err := json.Unmarshal(l, &entries[i]); err != nil {
				t.Fatalf("v%d line %d: %v", v, i+1, err)
			}
			if entries[i]["type"] == "compaction" {
				compaction = entries[i]
			}
		}
		if compaction == nil {
			t.Fatalf("v%d: no compaction entry", v)
		}
		switch v {
		case 1:
			if _, ok := header["version"]; ok || header["provider"] == nil {
				t.Fatalf("v1 header %v", header)
			}
			idx, ok := compaction["firstKeptEntryIndex"].(float64)
			if !ok || bytes.Contains(data, []byte(`"parentId"`)) {
				t.Fatalf("v1 compaction %v (or ids present)", compaction)
			}
			kept := entries[int(idx)]
			if msg, _ := kept["message"].(map[string]any); msg["role"] != "user" {
				t.Fatalf("v1 firstKeptEntryIndex %v points at %v", idx, kept)
			}
		default:
			if header["version"] != float64(v) {
				t.Fatalf("v%d header %v", v, header)
			}
			// v3 writes custom messages in the file form, custom_message
			// entries, never as role custom inside a message entry
			hasHook, hasCustom := bytes.Contains(data, []byte(`"role":"hookMessage"`)), bytes.Contains(data, []byte(`"role":"custom"`))
			hasEntry := bytes.Contains(data, []byte(`"type":"custom_message"`))
			if v == 2 && (!hasHook || hasCustom || hasEntry) || v == 3 && (hasHook || hasCustom || !hasEntry) {
				t.Fatalf("v%d: hookMessage %v, role custom %v, custom_message entry %v", v, hasHook, hasCustom, hasEntry)
			}
			if !bytes.Contains(data, []byte(`"type":"branch_summary"`)) {
				t.Fatalf("v%d: no branch summary", v)
			}
			tr, err := transcript.DecodeSession(data, transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-5"}, transcript.Limits{})
			if err != nil {
				t.Fatalf("v%d: %v", v, err)
			}
			if first := tr.Messages[0].Role(); first != transcript.RoleCompactionSummary {
				t.Fatalf("v%d: the decoded history starts with %q", v, first)
			}
			if bytes.Contains(tr.MessagesJSON(), []byte("abandoned")) {
				t.Fatalf("v%d: the abandoned branch is on the active one", v)
			}
			// v3's custom_message entries and v2's hookMessage messages are
			// read as custom messages, as pi rebuilds them
			if got := tr.MessagesJSON(); !bytes.Contains(got, []byte(`"customType":"reminder"`)) ||
				!bytes.Contains(got, []byte(`"role":"custom"`)) || bytes.Contains(got, []byte(`"role":"hookMessage"`)) {
				t.Fatalf("v%d: no custom message decoded: %s", v, tr.MessagesJSON())
			}
		}
	}
}

// TestRealLengthIDsOnlyChangeIDs: with RealLengthIDs a seed gives the same
// history but for its ids, and the well-formed ids have real lengths.
func TestRealLengthIDsOnlyChangeIDs(t *testing.T) {
	ids := regexp.MustCompile(`"(id|toolCallId|tool_use_id)":"[^"]*"`)
	real := regexp.MustCompile(`^(toolu_01[A-Za-z0-9]{22}|call_[A-Za-z0-9]{24}|call_[A-Za-z0-9]{24}\|fc_[0-9a-f]{50}|srvtoolu_01[A-Za-z0-9]{22})$`)
	for seed := range uint64(8) {
		for _, d := range []Damage{Heavy(), Issue16(), Realistic()} {
			cfg := Config{Seed: seed, Messages: 40, ToolCallDensity: 0.8, Damage: d, TextChars: 20, ToolResultChars: 20}
			if seed%2 == 1 {
				cfg.Target = transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}
			}
			short := New(cfg).History()
			cfg.RealLengthIDs = true
			long := New(cfg).History()
			if a, b := ids.ReplaceAll(short, []byte(`"$1":"ID"`)), ids.ReplaceAll(long, []byte(`"$1":"ID"`)); !bytes.Equal(a, b) {
				t.Fatalf("seed %d: RealLengthIDs changed more than ids", seed)
			}
			n := 0
			for _, m := range ids.FindAllSubmatch(long, -1) {
				v := string(m[0][len(m[1])+4 : len(m[0])-1])
				if strings.HasPrefix(v, "toolu_01") || strings.HasPrefix(v, "srvtoolu_01") || strings.HasPrefix(v, "call_") && !strings.Contains(v, "xxx") {
					if !real.MatchString(v) {
						t.Fatalf("seed %d: id %q has not a real length", seed, v)
					}
					n++
				}
			}
			if n == 0 {
				t.Fatalf("seed %d: no id checked", seed)
			}
		}
	}
}

// TestToolOutputResults: with ToolOutput 1 every tool result's text is
// tool output (lines with brackets, quotes, tabs), in a history the
// transcript decodes; ToolOutput 0 is the history without the field.
func TestToolOutputResults(t *testing.T) {
	for seed := range uint64(4) {
		cfg := Config{Seed: seed, Messages: 60, ToolCallDensity: 0.8, Damage: Realistic(), TextChars: 40, ToolResultChars: 300}
		prose := New(cfg).History()
		cfg.ToolOutput = 0
		if !bytes.Equal(New(cfg).History(), prose) {
			t.Fatalf("seed %d: ToolOutput 0 changed the history", seed)
		}
		cfg.ToolOutput = 1
		out := New(cfg).History()
		var msgs []map[string]any
		if err := json.Unmarshal(out, &msgs); err != nil {
			t.Fatal(err)
		}
		results := 0
		for i, m := range msgs {
			if m["role"] != "toolResult" {
				continue
			}
			results++
			text := m["content"].([]any)[0].(map[string]any)["text"].(string)
			if !strings.ContainsAny(text, "[{\"\t") || !strings.Contains(text, "\n") {
				t.Fatalf("seed %d: result %d holds no tool output: %q", seed, i, text)
			}
		}
		if results == 0 {
			t.Fatalf("seed %d: no tool result", seed)
		}
		if _, err := transcript.FromMessages(out, transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

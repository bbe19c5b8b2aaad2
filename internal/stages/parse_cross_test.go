package stages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// formatTargets is one target of each request format, for the cross-format
// properties (the first target of the chain's table with that format).
var formatTargets = map[wire.Format]transcript.Target{
	wire.AnthropicMessages: {Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"},
	wire.BedrockConverse:   {Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-7-sonnet-20250219-v1:0"},
	wire.OpenAIChat:        {Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
	wire.OpenAIResponses:   {Provider: "openai", API: "openai-responses", Model: "gpt-5"},
	wire.GeminiContents:    {Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"},
	wire.MistralChat:       {Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"},
}

// crossTools is the tool every body of the cross-format tests declares.
var crossTools = []transcript.Tool{{Name: "read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}

// sanitizeBody parses body (format f, written by src) for target tg, runs
// the chain and renders tg's body: the job path of a request job. It
// returns the body, the chain's report and its Reject, if any.
func sanitizeBody(t testing.TB, f wire.Format, body []byte, src, tg transcript.Target) ([]byte, *stage.Report, *stage.Reject) {
	t.Helper()
	p := policy.Resolve(tg)
	parsed, err := wire.Parse(f, body, src, wire.FormatFor(p))
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", f, err, body)
	}
	tr, env, rej := runChain(t, tg, parsed.Messages, nil, stage.Settings{})
	if rej != nil {
		return nil, env.Report, rej
	}
	return wire.Render(nil, wire.FormatFor(p), p, tr.Messages, wire.Request{System: parsed.System, Tools: parsed.Tools}), env.Report, nil
}

// carried is what a body holds that the properties compare: every string
// value (texts, data URLs, base64), and every call as name + compact
// arguments.
type carried struct {
	strings string
	calls   []string
}

// carriedBy walks a body of any format.
func carriedBy(t testing.TB, body []byte) carried {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var c carried
	var sb strings.Builder
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			sb.WriteString(x)
			sb.WriteByte(0)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			if name, ok := x["name"].(string); ok {
				for _, key := range []string{"input", "args", "arguments"} {
					if args, ok := x[key]; ok {
						c.calls = append(c.calls, name+" "+compactArgs(args))
					}
				}
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	c.strings = sb.String()
	sort.Strings(c.calls)
	return c
}

// compactArgs is a call's arguments as compact JSON, whether the format
// writes them as an object or as a JSON string.
func compactArgs(args any) string {
	if s, ok := args.(string); ok {
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			args = v
		}
	}
	b, _ := json.Marshal(args)
	return string(b)
}

// inputOf is what the parsed history holds that any target can carry: the
// non-blank texts of user turns, assistant turns and the results that
// answer a call (the first result of each), the calls that have a result,
// and the images (base64).
type inputOf struct {
	texts, images, calls []string
}

func readInput(t testing.TB, msgs []byte) inputOf {
	t.Helper()
	var list []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"toolCallId"`
	}
	if err := json.Unmarshal(msgs, &list); err != nil {
		t.Fatal(err)
	}
	type block struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	answered := map[string]bool{}
	for _, m := range list {
		if m.Role == transcript.RoleToolResult {
			answered[m.ToolCallID] = true
		}
	}
	called, resulted := map[string]bool{}, map[string]bool{}
	var in inputOf
	for _, m := range list {
		var blocks []block
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		if m.Role == transcript.RoleToolResult {
			if !called[m.ToolCallID] || resulted[m.ToolCallID] {
				continue // an orphan or a duplicate: the pairing repair drops it
			}
			resulted[m.ToolCallID] = true
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if !transcript.IsBlank(b.Text) {
					in.texts = append(in.texts, b.Text)
				}
			case "image":
				in.images = append(in.images, b.Data)
			case "toolCall":
				called[b.ID] = true
				if answered[b.ID] && json.Valid(b.Arguments) && bytes.HasPrefix(bytes.TrimSpace(b.Arguments), []byte("{")) {
					var v any
					_ = json.Unmarshal(b.Arguments, &v)
					in.calls = append(in.calls, b.Name+" "+compactArgs(v))
				}
			}
		}
	}
	sort.Strings(in.calls)
	return in
}

// TestCrossFormat: for every pair of formats (F, G), a generated damaged
// history H rendered as an F body and sanitized for a target of G passes
// G's contract (the chain's last stage refuses what does not) and keeps
// every text, call (name and arguments), result and image of H that the
// direct path keeps, H sanitized for G and rendered: the format F in
// between loses nothing the rules keep. H is, by turns, a history with the
// damage of real archives (sessiongen.Realistic) and one of the shapes real
// sessions carry (sessiongen.RealShapes: real ids, partialJson, foreign
// turns, stand-ins, the extra roles).
func TestCrossFormat(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for _, f := range wire.Formats {
		src := formatTargets[f]
		for _, g := range wire.Formats {
			tg := formatTargets[g]
			t.Run(fmt.Sprintf("%s to %s", f, g), func(t *testing.T) {
				for seed := range seeds {
					history := sessiongen.New(sessiongen.Config{Seed: uint64(seed + 1), Messages: 30, ToolCallDensity: 0.7, Damage: sessiongen.Realistic(),
						TextChars: 40, ToolResultChars: 40, Images: 2, ImageWidth: 64, ImageHeight: 48, Target: src, RealLengthIDs: true}).History()
					if seed%2 == 1 {
						history = sessiongen.RealShapes(sessiongen.RealConfig{Seed: uint64(seed + 1), Target: src, Turns: 5, Foreign: true, StandIns: true, ExtraRoles: true}).History()
					}
					tr, err := transcript.FromMessages(history, src)
					if err != nil {
						t.Fatal(err)
					}
					req := wire.Request{System: json.RawMessage(`"Be brief."`), Tools: crossTools}
					body := wire.Render(nil, f, policy.Resolve(src), tr.Messages, req)
					in := readInput(t, history)
					out, report, rej := sanitizeBody(t, f, body, src, tg)
					if rej != nil {
						t.Fatalf("seed %d: refused for %s: %v", seed, g, rej)
					}
					direct, _ := runWith(t, tg, history, nil, stage.Settings{})
					p := policy.Resolve(tg)
					want := carriedBy(t, wire.Render(nil, g, p, direct.Messages, req))
					got := carriedBy(t, out)
					for _, s := range in.texts {
						if strings.Contains(want.strings, s) && !strings.Contains(got.strings, s) {
							t.Fatalf("seed %d: text %q lost (report %v)", seed, s, report.Stages)
						}
					}
					for _, img := range in.images {
						if strings.Contains(want.strings, img) && !strings.Contains(got.strings, img) {
							t.Fatalf("seed %d: an image lost (report %v)", seed, report.Stages)
						}
					}
					kept := intersect(in.calls, want.calls)
					if missing := missingFrom(kept, got.calls); len(missing) > 0 {
						t.Fatalf("seed %d: calls lost: %v (report %v)", seed, missing, report.Stages)
					}
				}
			})
		}
	}
}

// intersect returns the multiset intersection of two sorted lists.
func intersect(a, b []string) []string {
	var out []string
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// missingFrom returns the elements of want (sorted) not in got (sorted),
// as multisets.
func missingFrom(want, got []string) []string {
	var missing []string
	i := 0
	for _, w := range want {
		for i < len(got) && got[i] < w {
			i++
		}
		if i < len(got) && got[i] == w {
			i++
			continue
		}
		missing = append(missing, w)
	}
	return missing
}

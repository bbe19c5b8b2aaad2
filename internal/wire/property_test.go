package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// propertyTargets are one target per format (and a Claude that keeps
// Anthropic's server-tool blocks).
var propertyTargets = []transcript.Target{
	{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"},
	{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-7-sonnet-20250219-v1:0"},
	{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
	{Provider: "openai", API: "openai-responses", Model: "gpt-5"},
	{Provider: "google", API: "google-generative-ai", Model: "gemini-3-pro-preview"},
	{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"},
}

// damagedHistory is a generated history for tg with the damage of issue 16
// (server-tool blocks included) and images.
func damagedHistory(seed uint64, tg transcript.Target) []byte {
	return sessiongen.New(sessiongen.Config{Seed: seed, Messages: 40, ToolCallDensity: 0.7, TextChars: 60,
		ToolResultChars: 80, Images: 2, ImageWidth: 32, ImageHeight: 24, Damage: sessiongen.Issue16(), Target: tg}).History()
}

// realHistory is a generated history of the shapes real sessions carry
// (docs/real-shapes.md: real ids, partialJson left on finished calls,
// foreign turns after a model switch, stand-ins, the extra roles), written
// for tg.
func realHistory(seed uint64, tg transcript.Target) []byte {
	return sessiongen.RealShapes(sessiongen.RealConfig{Seed: seed, Target: tg, Turns: 6, Foreign: true, StandIns: true, ExtraRoles: true}).History()
}

// sanitized runs the default chain over a history for tg, all but the
// image rule (which needs libvips; it resizes images and keeps their
// blocks, so a body is checked against the blocks it would get).
func sanitized(t *testing.T, history []byte, tg transcript.Target) (*transcript.Transcript, policy.Policy) {
	t.Helper()
	tr, err := transcript.FromMessages(history, tg)
	if err != nil {
		t.Fatal(err)
	}
	p := policy.Resolve(tg)
	env := &stage.Env{Policy: p, Report: stage.NewReport()}
	for _, s := range stages.Default(nil) {
		if s.Name == "images" {
			continue
		}
		if err := s.Apply(context.Background(), tr, env); err != nil {
			if _, ok := err.(*stage.Reject); ok {
				return nil, p
			}
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
	return tr, p
}

// kept is what a body must carry of the sanitized messages: every
// non-blank text, call id and name, result id, image base64 and (Anthropic)
// server-tool block id.
type kept struct{ texts, ids, images []string }

func keptOf(msgs []*transcript.Message, f Format) kept {
	var k kept
	addText := func(s string) {
		if !transcript.IsBlank(s) {
			k.texts = append(k.texts, s)
		}
	}
	for _, m := range msgs {
		role := m.Role()
		switch role {
		case transcript.RoleUser, transcript.RoleAssistant, transcript.RoleToolResult, transcript.RoleTool:
		case transcript.RoleCompactionSummary, transcript.RoleBranchSummary:
			if s, ok := m.String("summary"); ok {
				addText(s)
			}
			continue
		default:
			continue
		}
		if s, ok := m.ContentString(); ok {
			addText(s)
		}
		if role == transcript.RoleToolResult || role == transcript.RoleTool {
			id, _ := m.ResultID()
			k.ids = append(k.ids, wireCallID(id, f))
		}
		blocks, _ := m.Blocks()
		for _, b := range blocks {
			switch t := b.Type(); {
			case t == transcript.BlockText:
				s, _ := b.Text()
				addText(s)
			case t == transcript.BlockImage:
				data, _ := b.String("data")
				k.images = append(k.images, data)
			case role == transcript.RoleAssistant && b.IsToolCall():
				id, _ := b.String("id")
				name, _ := b.String("name")
				k.ids = append(k.ids, wireCallID(id, f), name)
			case role == transcript.RoleAssistant && isServerBlock(t):
				for _, key := range []string{"id", "tool_use_id"} {
					if id, ok := b.String(key); ok {
						k.ids = append(k.ids, id)
					}
				}
			}
		}
	}
	return k
}

// bodyStrings returns every string of a JSON body, each followed by a NUL.
func bodyStrings(t *testing.T, body []byte) string {
	var sb strings.Builder
	eachValue(t, body, func(x any) {
		if s, ok := x.(string); ok {
			sb.WriteString(s)
			sb.WriteByte(0)
		}
	})
	return sb.String()
}

// eachValue calls visit with every value of a JSON body, containers
// before their members.
func eachValue(t *testing.T, body []byte, visit func(any)) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("invalid body: %v", err)
	}
	var walk func(any)
	walk = func(x any) {
		visit(x)
		switch x := x.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// checkSendable: a body rendered as the pipeline renders it (its final
// turn judged) passes the contract's body rules, or the renderer refuses
// it and the contract refuses its plain render for its final turn alone.
func checkSendable(t *testing.T, f Format, p policy.Policy, msgs []*transcript.Message, plain []byte) {
	t.Helper()
	final, refusal := FinalTurn(p, msgs, transcript.Options{Render: RenderRequest})
	body := plain
	if final != FinalAsIs {
		body = Render(nil, f, p, msgs, Request{Tools: []transcript.Tool{{Name: "read"}}, Final: final})
	}
	res, err := contract.CheckBody(f, body, p.Model)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case refusal == nil && !res.OK():
		t.Errorf("%s: the body breaks the contract: %s", f, res.Summary())
	case refusal != nil && (res.Total != 1 || res.Counts[contract.RuleFinalTurn] != 1):
		t.Errorf("%s: refused (%v), but the contract says %q", f, refusal, res.Summary())
	}
}

// TestBodyKeepsMessages: over generated histories, damaged (issue 16) and
// of the real shapes (sessiongen.RealShapes, never refused), sanitized by the
// chain for one target of each format, every body passes the contract's
// body rules (or is the final-turn refusal, checkSendable), and it carries every text, call,
// result, image and server-tool pair the sanitized messages keep, and each
// whole string where the format has its own member for it (ids, names,
// images); texts may be joined with TextSeparator.
func TestBodyKeepsMessages(t *testing.T) {
	servers := 0
	for _, tg := range propertyTargets {
		for seed := uint64(1); seed <= 24; seed++ {
			history, shape := damagedHistory(seed, tg), "damaged"
			if seed > 12 {
				history, shape = realHistory(seed, tg), "real shapes"
			}
			tr, p := sanitized(t, history, tg)
			if tr == nil {
				if seed > 12 {
					t.Errorf("%s seed %d (%s): a valid history was refused", tg.API, seed, shape)
				}
				continue
			}
			f := FormatFor(p)
			body := Render(nil, f, p, tr.Messages, Request{Tools: []transcript.Tool{{Name: "read"}}})
			checkSendable(t, f, p, tr.Messages, body)
			all := bodyStrings(t, body)
			k := keptOf(tr.Messages, f)
			where := fmt.Sprintf("%s seed %d (%s)", f, seed, shape)
			for _, s := range k.texts {
				if !strings.Contains(all, s) {
					t.Errorf("%s: text %.60q missing from the body", where, s)
				}
			}
			for _, id := range k.ids {
				if !strings.Contains(all, "\x00"+id+"\x00") && !strings.HasPrefix(all, id+"\x00") {
					t.Errorf("%s: id or name %q missing from the body", where, id)
				}
				if strings.HasPrefix(id, "srvtoolu_") {
					servers++
				}
			}
			for _, img := range k.images {
				if !strings.Contains(all, img) {
					t.Errorf("%s: an image's base64 is missing from the body", where)
				}
			}
		}
	}
	if servers == 0 {
		t.Error("no server-tool pair was kept: the property does not cover them")
	}
}

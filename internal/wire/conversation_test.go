package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// conversation is what both forms must agree on: assistant turns (runs of
// consecutive assistant messages count once where the format merges them),
// call ids, result ids in order, and all texts in order.
type conversation struct {
	AssistantTurns int
	Calls, Results []string
	Text           string // every text concatenated, line breaks removed (joins add them)
}

// fromMessages reads the conversation from the sanitized messages.
func fromMessages(msgs []*transcript.Message, f Format) conversation {
	var c conversation
	var text strings.Builder
	merged := f == AnthropicMessages || f == BedrockConverse || f == OpenAIResponses
	prevAssistant := false
	for _, m := range msgs {
		isAssistant := false
		switch m.Role() {
		case transcript.RoleUser, transcript.RoleToolResult:
			if s, ok := m.ContentString(); ok {
				text.WriteString(s)
			}
			blocks, _ := m.Blocks()
			for _, b := range blocks {
				if b.Type() == transcript.BlockText {
					s, _ := b.Text()
					text.WriteString(s)
				}
			}
			if m.Role() == transcript.RoleToolResult {
				id, _ := m.ResultID()
				c.Results = append(c.Results, wireCallID(id, f))
			}
		case transcript.RoleAssistant:
			blocks, _ := m.Blocks()
			has := false
			for _, b := range blocks {
				switch {
				case b.Type() == transcript.BlockText:
					s, _ := b.Text()
					text.WriteString(s)
					has = true
				case b.IsToolCall():
					id, okID := b.String("id")
					_, okName := b.String("name")
					if okID && okName {
						c.Calls = append(c.Calls, wireCallID(id, f))
						has = true
					}
				}
			}
			if has {
				isAssistant = true
				if !(merged && prevAssistant) {
					c.AssistantTurns++
				}
			}
		}
		if m.Role() != transcript.RoleAssistant || isAssistant {
			prevAssistant = isAssistant
		}
	}
	c.Text = strings.ReplaceAll(text.String(), "\n", "")
	return c
}

// wireCallID is the id a format carries for an OpenClaw call id: Responses
// keeps the call_id half of "call_…|fc_…".
func wireCallID(id string, f Format) string {
	if f == OpenAIResponses {
		if i := strings.IndexByte(id, '|'); i > 0 && strings.HasPrefix(id[i+1:], "fc_") {
			return id[:i]
		}
	}
	return id
}

// fromBody reads the conversation from a rendered body.
func fromBody(t *testing.T, f Format, body []byte) conversation {
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	var c conversation
	var text strings.Builder
	str := func(x any) string { s, _ := x.(string); return s }
	addText := func(x any) {
		if s := str(x); s != imageMovedText && s != emptyResultText {
			text.WriteString(s)
		}
	}
	list := func(x any) []any { a, _ := x.([]any); return a }
	switch f {
	case AnthropicMessages, BedrockConverse:
		for _, m := range list(v["messages"]) {
			if at(m, "role") == "assistant" {
				c.AssistantTurns++
			}
			for _, b := range list(at(m, "content")) {
				switch {
				case at(b, "type") == "text" || f == BedrockConverse && at(b, "text") != nil:
					addText(at(b, "text"))
				case at(b, "type") == "tool_use":
					c.Calls = append(c.Calls, str(at(b, "id")))
				case at(b, "toolUse") != nil:
					c.Calls = append(c.Calls, str(at(b, "toolUse", "toolUseId")))
				case at(b, "type") == "tool_result" || at(b, "toolResult") != nil:
					id, inner := at(b, "tool_use_id"), at(b, "content")
					if f == BedrockConverse {
						id, inner = at(b, "toolResult", "toolUseId"), at(b, "toolResult", "content")
					}
					c.Results = append(c.Results, str(id))
					for _, rb := range list(inner) {
						addText(at(rb, "text"))
					}
				}
			}
		}
	case OpenAIChat, MistralChat:
		for _, m := range list(v["messages"]) {
			switch at(m, "role") {
			case "assistant":
				if at(m, "content") == mistralBridgeText {
					continue // the bridge of a Mistral tool → user turn
				}
				c.AssistantTurns++
				for _, tc := range list(at(m, "tool_calls")) {
					c.Calls = append(c.Calls, str(at(tc, "id")))
				}
			case "tool":
				c.Results = append(c.Results, str(at(m, "tool_call_id")))
			}
			addText(at(m, "content"))
			for _, p := range list(at(m, "content")) {
				addText(at(p, "text"))
			}
		}
	case OpenAIResponses:
		prevAssistant := false
		for _, item := range list(v["input"]) {
			assistant := at(item, "role") == "assistant" || at(item, "type") == "function_call" || at(item, "type") == "reasoning"
			if assistant && !prevAssistant {
				c.AssistantTurns++
			}
			prevAssistant = assistant
			switch at(item, "type") {
			case "function_call":
				c.Calls = append(c.Calls, str(at(item, "call_id")))
			case "function_call_output":
				c.Results = append(c.Results, str(at(item, "call_id")))
				addText(at(item, "output"))
				for _, p := range list(at(item, "output")) {
					addText(at(p, "text"))
				}
			case "message":
				addText(at(item, "content"))
				for _, p := range list(at(item, "content")) {
					addText(at(p, "text"))
				}
			}
		}
	case GeminiContents:
		for _, content := range list(v["contents"]) {
			if at(content, "role") == "model" {
				c.AssistantTurns++
			}
			for _, p := range list(at(content, "parts")) {
				switch {
				case at(p, "thought") == true:
				case at(p, "functionCall") != nil:
					c.Calls = append(c.Calls, str(at(p, "functionCall", "id")))
				case at(p, "functionResponse") != nil:
					c.Results = append(c.Results, str(at(p, "functionResponse", "id")))
					addText(at(p, "functionResponse", "response", "output"))
					addText(at(p, "functionResponse", "response", "error"))
				default:
					addText(at(p, "text"))
				}
			}
		}
	}
	c.Text = strings.ReplaceAll(text.String(), "\n", "")
	return c
}

// TestSameConversation: for every golden transcript and for generated
// histories in every format, the request form and the messages form have
// the same assistant turns, calls, results and texts.
func TestSameConversation(t *testing.T) {
	check := func(t *testing.T, name string, tr *transcript.Transcript, p policy.Policy, f Format) {
		t.Helper()
		body := Render(nil, f, p, tr.Messages, Request{})
		want, got := fromMessages(tr.Messages, f), fromBody(t, f, body)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s (%s): the request form differs from the messages form\nmessages: %+v\nrequest:  %+v", name, f, want, got)
		}
	}
	for name := range goldenTargets {
		tr, p := goldenInput(t, name)
		check(t, name, tr, p, FormatFor(p))
	}
	for seed := uint64(1); seed <= 20; seed++ {
		history := sessiongen.New(sessiongen.Config{Seed: seed, Messages: 40, ToolCallDensity: 0.7, TextChars: 50, ToolResultChars: 60}).History()
		for _, f := range Formats {
			tr, err := transcript.FromMessages(history, transcript.Target{Provider: "x", API: "y", Model: "gemini-3-pro"})
			if err != nil {
				t.Fatal(err)
			}
			check(t, fmt.Sprintf("seed %d", seed), tr, policy.Resolve(tr.Target), f)
		}
	}
}

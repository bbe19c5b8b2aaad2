package contract

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// The rules of a request body (CheckBody), beside those of the messages.
const (
	// RuleSystem: a system text the API refuses (an empty or blank
	// Anthropic system block; a Bedrock SystemContentBlock text shorter
	// than its minimum length of 1).
	RuleSystem = "system"
	// RuleFinalTurn: the body ends with an assistant turn the model does
	// not take (PrefillOf), or with a prefill whose text ends in white
	// space where that is refused.
	RuleFinalTurn = "final_turn"
	// RuleEmptyBody: the body has no turn at all.
	RuleEmptyBody = "empty_body"
)

// BodyFormat is a provider request format CheckBody reads. Its values are
// the ready payload's request_format names.
type BodyFormat string

// The six body formats.
const (
	BodyAnthropic BodyFormat = "anthropic-messages"
	BodyBedrock   BodyFormat = "bedrock-converse"
	BodyChat      BodyFormat = "openai-chat-completions"
	BodyResponses BodyFormat = "openai-responses"
	BodyGemini    BodyFormat = "gemini-generate-content"
	BodyMistral   BodyFormat = "mistral-chat"
)

// bodyAliases are the short names `worker check --format` takes.
var bodyAliases = map[string]BodyFormat{
	"anthropic": BodyAnthropic, "bedrock": BodyBedrock, "openai-chat": BodyChat, "chat": BodyChat,
	"responses": BodyResponses, "gemini": BodyGemini, "mistral": BodyMistral,
}

// ParseBodyFormat reads a format name: a request_format value or its
// short form (anthropic-messages or anthropic, openai-chat-completions or
// openai-chat, gemini-generate-content or gemini, mistral-chat or mistral, ...).
func ParseBodyFormat(s string) (BodyFormat, error) {
	switch f := BodyFormat(s); f {
	case BodyAnthropic, BodyBedrock, BodyChat, BodyResponses, BodyGemini, BodyMistral:
		return f, nil
	}
	if f, ok := bodyAliases[s]; ok {
		return f, nil
	}
	return "", fmt.Errorf("unknown body format %q (anthropic-messages, bedrock-converse, openai-chat, openai-responses, gemini, mistral)", s)
}

// family is the contract family whose tool-name limits and prefill rule a
// format's body follows.
func (f BodyFormat) family() Family {
	switch f {
	case BodyAnthropic:
		return AnthropicMessages
	case BodyBedrock:
		return BedrockConverse
	case BodyResponses:
		return OpenAIResponses
	case BodyGemini:
		return Gemini
	case BodyMistral:
		return Mistral
	}
	return OpenAIChat
}

// Prefill is the prefill rule of a body of this format for model: the
// rule of the format's family (a Mistral model behind an OpenAI-compatible
// server gets Chat Completions' rule; prefix: true is Mistral's own API's).
func (f BodyFormat) Prefill(model string) PrefillRule { return PrefillOf(f.family(), model) }

// bodyTurn is what the body rules read of one turn.
type bodyTurn struct {
	path      string
	assistant bool
	// lastText is the turn's last text (the prefill's end); prefix is
	// Mistral's "prefix": true.
	lastText string
	hasText  bool
	prefix   bool
}

// named is a tool name in the body, with its path.
type named struct{ path, name string }

// bodyView is a body read into what the rules check.
type bodyView struct {
	system []named // system texts (the name field holds the text)
	turns  []bodyTurn
	names  []named // declared tools and called tools
	model  string
}

// CheckBody checks a provider request body of format f against the rules
// the provider refuses a body on that the message model cannot show: the
// system text (RuleSystem), the final turn by the model's prefill rule
// (RuleFinalTurn, PrefillOf), every tool name as sent, declared or called
// (RuleToolName, by the format's family's ToolNames), and a body with no
// turn (RuleEmptyBody). model is the target model; the body's own "model"
// member, when it has one, wins. An error is a body that is not JSON of the
// format's shape.
func CheckBody(f BodyFormat, body []byte, model string) (Result, error) {
	v, err := readBody(f, body)
	if err != nil {
		return Result{}, err
	}
	if v.model != "" {
		model = v.model
	}
	var r Result
	for _, s := range v.system {
		if f == BodyBedrock && s.name == "" || f == BodyAnthropic && strings.TrimSpace(s.name) == "" {
			r.add(RuleSystem, s.path, "empty or blank system text")
		}
	}
	limits := Of(f.family()).ToolNames
	for _, n := range v.names {
		if !limits.Valid(n.name) {
			r.add(RuleToolName, n.path, "tool name %q %s", n.name, describe(limits))
		}
	}
	if len(v.turns) == 0 {
		r.add(RuleEmptyBody, "body", "the body has no turn")
		return r, nil
	}
	last := v.turns[len(v.turns)-1]
	if !last.assistant {
		return r, nil
	}
	rule := f.Prefill(model)
	switch {
	case rule.Prefill == PrefillRefused, rule.Prefill == PrefillFlagged && !last.prefix:
		who := "the target"
		if model != "" {
			who = fmt.Sprintf("model %q", model)
		}
		r.add(RuleFinalTurn, last.path, "the body ends with an assistant turn, which %s refuses: %s", who, rule.Rule)
	case rule.TrimTrailingSpace && last.hasText && strings.TrimRightFunc(last.lastText, unicode.IsSpace) != last.lastText:
		r.add(RuleFinalTurn, last.path, "the final assistant text ends in white space, which %s refuses", f)
	}
	return r, nil
}

// Join returns r with the violations of other added, their paths under
// prefix (a payload's "request."), listed after r's within MaxListed.
func (r Result) Join(prefix string, other Result) Result {
	for _, v := range other.Violations {
		r.add(v.Rule, prefix+v.Path, "%s", v.Msg)
	}
	// violations other counted but did not list
	for rule, n := range other.Counts {
		for listed := countListed(other.Violations, rule); listed < n; listed++ {
			r.Total++
			r.Counts[rule]++
		}
	}
	return r
}

// countListed counts the listed violations of one rule.
func countListed(vs []Violation, rule string) int {
	n := 0
	for _, v := range vs {
		if v.Rule == rule {
			n++
		}
	}
	return n
}

// readBody reads a body of format f into its view.
func readBody(f BodyFormat, body []byte) (bodyView, error) {
	var raw struct {
		Model             string          `json:"model"`
		System            json.RawMessage `json:"system"`
		Instructions      json.RawMessage `json:"instructions"`
		SystemInstruction *struct {
			Parts []struct {
				Text *string `json:"text"`
			} `json:"parts"`
		} `json:"systemInstruction"`
		Messages []map[string]json.RawMessage `json:"messages"`
		Input    []map[string]json.RawMessage `json:"input"`
		Contents []struct {
			Role  string                       `json:"role"`
			Parts []map[string]json.RawMessage `json:"parts"`
		} `json:"contents"`
		Tools      []map[string]json.RawMessage `json:"tools"`
		ToolConfig *struct {
			Tools []struct {
				ToolSpec struct {
					Name string `json:"name"`
				} `json:"toolSpec"`
			} `json:"tools"`
		} `json:"toolConfig"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return bodyView{}, fmt.Errorf("not a %s body: %v", f, err)
	}
	v := bodyView{model: raw.Model}
	switch f {
	case BodyAnthropic, BodyBedrock:
		v.system = systemBlocks(raw.System)
		for i, m := range raw.Messages {
			v.turns = append(v.turns, blocksTurn(fmt.Sprintf("messages[%d]", i), m, f, &v.names))
		}
		if raw.ToolConfig != nil {
			for i, t := range raw.ToolConfig.Tools {
				v.names = append(v.names, named{fmt.Sprintf("toolConfig.tools[%d].toolSpec.name", i), t.ToolSpec.Name})
			}
		}
		for i, t := range raw.Tools {
			v.names = append(v.names, named{fmt.Sprintf("tools[%d].name", i), str(t["name"])})
		}
	case BodyChat, BodyMistral:
		for i, m := range raw.Messages {
			path := fmt.Sprintf("messages[%d]", i)
			role := str(m["role"])
			if role == "system" {
				continue
			}
			t := bodyTurn{path: path, assistant: role == "assistant", prefix: string(m["prefix"]) == "true"}
			t.lastText, t.hasText = chatText(m["content"])
			var calls []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			}
			_ = json.Unmarshal(m["tool_calls"], &calls)
			for k, c := range calls {
				v.names = append(v.names, named{fmt.Sprintf("%s.tool_calls[%d].function.name", path, k), c.Function.Name})
			}
			v.turns = append(v.turns, t)
		}
		for i, t := range raw.Tools {
			var fn struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(t["function"], &fn)
			v.names = append(v.names, named{fmt.Sprintf("tools[%d].function.name", i), fn.Name})
		}
	case BodyResponses:
		for i, item := range raw.Input {
			path := fmt.Sprintf("input[%d]", i)
			switch typ := str(item["type"]); {
			case typ == "function_call":
				v.names = append(v.names, named{path + ".name", str(item["name"])})
				v.turns = append(v.turns, bodyTurn{path: path, assistant: true})
			case typ == "function_call_output":
				v.turns = append(v.turns, bodyTurn{path: path})
			case typ == "reasoning":
				v.turns = append(v.turns, bodyTurn{path: path, assistant: true})
			default:
				t := bodyTurn{path: path, assistant: str(item["role"]) == "assistant"}
				t.lastText, t.hasText = chatText(item["content"])
				v.turns = append(v.turns, t)
			}
		}
		for i, t := range raw.Tools {
			if str(t["type"]) == "function" {
				v.names = append(v.names, named{fmt.Sprintf("tools[%d].name", i), str(t["name"])})
			}
		}
	case BodyGemini:
		if raw.SystemInstruction != nil {
			for i, p := range raw.SystemInstruction.Parts {
				if p.Text != nil {
					v.system = append(v.system, named{fmt.Sprintf("systemInstruction.parts[%d].text", i), *p.Text})
				}
			}
		}
		for i, c := range raw.Contents {
			path := fmt.Sprintf("contents[%d]", i)
			t := bodyTurn{path: path, assistant: c.Role == "model"}
			for k, p := range c.Parts {
				var call struct {
					Name string `json:"name"`
				}
				if json.Unmarshal(p["functionCall"], &call) == nil && p["functionCall"] != nil {
					v.names = append(v.names, named{fmt.Sprintf("%s.parts[%d].functionCall.name", path, k), call.Name})
				}
				if text, ok := p["text"]; ok && string(p["thought"]) != "true" {
					t.lastText, t.hasText = str(text), true
				}
			}
			v.turns = append(v.turns, t)
		}
		for i, t := range raw.Tools {
			var decls []struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(t["functionDeclarations"], &decls)
			for k, d := range decls {
				v.names = append(v.names, named{fmt.Sprintf("tools[%d].functionDeclarations[%d].name", i, k), d.Name})
			}
		}
	}
	return v, nil
}

// systemBlocks reads an Anthropic or Bedrock system: a string or a list of
// blocks with a text.
func systemBlocks(raw json.RawMessage) []named {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []named{{"system", s}}
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	out := make([]named, len(blocks))
	for i, b := range blocks {
		out[i] = named{fmt.Sprintf("system[%d].text", i), b.Text}
	}
	return out
}

// blocksTurn reads one Anthropic or Bedrock message: its role, its last
// text and the tools its calls name.
func blocksTurn(path string, m map[string]json.RawMessage, f BodyFormat, names *[]named) bodyTurn {
	t := bodyTurn{path: path, assistant: str(m["role"]) == "assistant"}
	if s, ok := chatText(m["content"]); ok && len(m["content"]) > 0 && m["content"][0] == '"' {
		t.lastText, t.hasText = s, true
		return t
	}
	var blocks []map[string]json.RawMessage
	_ = json.Unmarshal(m["content"], &blocks)
	for k, b := range blocks {
		at := fmt.Sprintf("%s.content[%d]", path, k)
		switch {
		case f == BodyAnthropic && str(b["type"]) == "tool_use":
			*names = append(*names, named{at + ".name", str(b["name"])})
		case f == BodyBedrock && b["toolUse"] != nil:
			var use struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(b["toolUse"], &use)
			*names = append(*names, named{at + ".toolUse.name", use.Name})
		}
		if text, ok := b["text"]; ok && (f == BodyBedrock || str(b["type"]) == "text") {
			t.lastText, t.hasText = str(text), true
		}
	}
	return t
}

// chatText reads a content that is a string or a list of parts with text:
// the last text.
func chatText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Text *string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i].Text != nil {
			return *parts[i].Text, true
		}
	}
	return "", false
}

// str reads a raw JSON string; "" for anything else.
func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

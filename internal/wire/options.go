package wire

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// maxOpenAITools is the most tools an OpenAI request may declare: Chat
// Completions and Responses answer "Invalid 'tools': array too long.
// Expected an array with maximum length 128" above it (OpenAI API
// reference, tools: "A max of 128 functions are supported").
const maxOpenAITools = 128

// CheckOptions rejects the rendering options a job cannot be rendered
// with in format f, naming the field: an unknown render value, a system
// prompt that is neither a string nor text blocks, a tool without a name,
// a tool name given twice, a tool schema that is not a JSON object or
// whose type is not "object" (every format's function arguments are an
// object: Anthropic's input_schema.type, Bedrock's inputSchema.json,
// OpenAI's and Mistral's parameters, Gemini's parameters and
// parametersJsonSchema), more
// tools than OpenAI takes (PlaceNext checks `next`). A blank system prompt is not an error: Render drops it.
//
// The rules that depend on the format are checked only for a request body
// (render: request): a messages-only job renders no body.
func CheckOptions(o transcript.Options, f Format) error {
	switch o.Render {
	case "", RenderMessages, RenderRequest:
	default:
		return fmt.Errorf("options.render must be %q or %q, got %q", RenderMessages, RenderRequest, o.Render)
	}
	if _, _, ok := systemTexts(o.System); !ok {
		return fmt.Errorf(`options.system must be a string or an array of {"type":"text","text":...} blocks`)
	}
	seen := make(map[string]bool, len(o.Tools))
	for i, tool := range o.Tools {
		if tool.Name == "" {
			return fmt.Errorf("options.tools[%d].name must not be empty", i)
		}
		if seen[tool.Name] {
			return fmt.Errorf("options.tools[%d].name %q is given twice", i, tool.Name)
		}
		seen[tool.Name] = true
		if err := checkSchema(tool.InputSchema); err != nil {
			return fmt.Errorf("options.tools[%d].input_schema %v", i, err)
		}
	}
	if o.Render != RenderRequest {
		return nil
	}
	if (f == OpenAIChat || f == OpenAIResponses) && len(o.Tools) > maxOpenAITools {
		return fmt.Errorf("options.tools has %d tools; %s takes at most %d", len(o.Tools), f, maxOpenAITools)
	}
	return nil
}

// checkSchema accepts an absent schema (Render sends {"type":"object"}) or
// a JSON object whose type, when given, is "object" ("OBJECT" in Gemini's
// Schema dialect: schema.go).
func checkSchema(raw json.RawMessage) error {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return nil
	}
	var v struct {
		Type json.RawMessage `json:"type"`
	}
	if s[0] != '{' || json.Unmarshal(s, &v) != nil {
		return fmt.Errorf("must be a JSON object")
	}
	if len(v.Type) > 0 && string(v.Type) != `"object"` && string(v.Type) != `"OBJECT"` {
		return fmt.Errorf(`must have "type":"object" (a function's arguments are an object), got %s`, v.Type)
	}
	return nil
}

// systemTexts returns the system prompt's non-blank texts as raw JSON
// strings: the string itself, or each text block's text; and, when a block
// has one, each text's cache_control (Anthropic's prompt-caching
// breakpoint, which the Anthropic renderer writes back), nil otherwise. A
// blank text is dropped (Anthropic refuses an empty system text block, and
// Bedrock's SystemContentBlock text has a minimum length of 1), so a prompt
// of blank texts only gives none. ok is false when the value has another
// shape than a string, an array of text blocks or null.
func systemTexts(raw json.RawMessage) (texts, cache [][]byte, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil, true
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, nil, false
		}
		if transcript.IsBlank(s) {
			return nil, nil, true
		}
		return [][]byte{transcript.JSONString(s)}, nil, true
	}
	var blocks []struct {
		Type         string          `json:"type"`
		Text         *string         `json:"text"`
		CacheControl json.RawMessage `json:"cache_control"`
	}
	if raw[0] != '[' || json.Unmarshal(raw, &blocks) != nil {
		return nil, nil, false
	}
	for _, b := range blocks {
		if b.Type != "text" || b.Text == nil {
			return nil, nil, false
		}
		if transcript.IsBlank(*b.Text) {
			continue
		}
		texts = append(texts, transcript.JSONString(*b.Text))
		var cc []byte
		if c := bytes.TrimSpace(b.CacheControl); len(c) > 0 && string(c) != "null" {
			var buf bytes.Buffer
			if json.Compact(&buf, c) == nil {
				cc = buf.Bytes()
			}
		}
		if cc != nil && cache == nil {
			cache = make([][]byte, len(texts)-1, len(blocks))
		}
		if cache != nil {
			cache = append(cache, cc)
		}
	}
	return texts, cache, true
}

package audit

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// RequestCheck is what the audit found in the rendered request body (job
// option render: request): the tool calls and results as the wire carries
// them, checked against the target's contract.
type RequestCheck struct {
	Format     string   `json:"format"`
	Bytes      int      `json:"bytes"`
	Calls      int      `json:"calls"`
	Results    int      `json:"results"`
	OK         bool     `json:"ok"`
	Violations []string `json:"violations"`
}

// maxListed bounds the violations a RequestCheck lists.
const maxListed = 20

// wireCall is a tool call or result as a request body carries it.
type wireCall struct {
	path   string // where it is in the body
	id     string // the id the provider pairs on ("" when the format has none)
	hasID  bool
	name   string
	result bool
}

// checkRequest reads the body of format f and checks, against c: each
// call id as sent (Responses: call_id) and each call name; with
// c.ToolPairing, that every call id is answered by a result and every
// result answers a call; the body's size against c.MaxRequestBytes. The
// order of turns is the contract check's (package contract), which the
// worker runs before rendering; this check sees what only the body shows:
// the ids and names after the wire's own rewriting.
func checkRequest(f wire.Format, body []byte, c contract.Contract) RequestCheck {
	rc := RequestCheck{Format: string(f), Bytes: len(body), Violations: []string{}}
	add := func(format string, a ...any) {
		if len(rc.Violations) < maxListed {
			rc.Violations = append(rc.Violations, fmt.Sprintf(format, a...))
		}
	}
	items, err := wireCalls(f, body)
	if err != nil {
		add("request: %v", err)
		return rc
	}
	calls := map[string]int{}
	answered := map[string]int{}
	for _, w := range items {
		if w.result {
			rc.Results++
			answered[w.id]++
			continue
		}
		rc.Calls++
		calls[w.id]++
		if w.hasID && !c.ToolCallIDs.Valid(w.id) {
			add("%s: tool call id %q is not accepted by %s", w.path, w.id, c.Family)
		}
		if !c.ToolNames.Valid(w.name) {
			add("%s: tool name %q is not accepted by %s", w.path, w.name, c.Family)
		}
	}
	if c.ToolPairing {
		for _, w := range items {
			switch {
			case !w.hasID:
			case w.result && calls[w.id] == 0:
				add("%s: tool result %q answers no call of the request", w.path, w.id)
			case !w.result && answered[w.id] == 0:
				add("%s: tool call %q has no result in the request", w.path, w.id)
			}
		}
	}
	if c.MaxRequestBytes > 0 && len(body) > c.MaxRequestBytes {
		add("request: %d bytes, over the %d bytes %s accepts", len(body), c.MaxRequestBytes, c.Family)
	}
	rc.OK = len(rc.Violations) == 0
	return rc
}

// wireCalls lists the tool calls and results of a request body in order.
func wireCalls(f wire.Format, body []byte) ([]wireCall, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc struct {
		Messages []json.RawMessage `json:"messages"` // Anthropic, Bedrock, Chat, Mistral
		Input    []json.RawMessage `json:"input"`    // Responses
		Contents []json.RawMessage `json:"contents"` // Gemini
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("the body is not a JSON object: %v", err)
	}
	var out []wireCall
	switch f {
	case wire.AnthropicMessages:
		for i, raw := range doc.Messages {
			var m struct {
				Content json.RawMessage `json:"content"`
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, fmt.Errorf("messages[%d]: %v", i, err)
			}
			var blocks []struct {
				Type      string  `json:"type"`
				ID        *string `json:"id"`
				Name      string  `json:"name"`
				ToolUseID *string `json:"tool_use_id"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue // a string content
			}
			for j, b := range blocks {
				p := fmt.Sprintf("messages[%d].content[%d]", i, j)
				switch b.Type {
				case "tool_use":
					out = append(out, wireCall{path: p, id: deref(b.ID), hasID: true, name: b.Name})
				case "tool_result":
					out = append(out, wireCall{path: p, id: deref(b.ToolUseID), hasID: true, result: true})
				}
			}
		}
	case wire.BedrockConverse:
		for i, raw := range doc.Messages {
			var m struct {
				Content []struct {
					ToolUse *struct {
						ToolUseID string `json:"toolUseId"`
						Name      string `json:"name"`
					} `json:"toolUse"`
					ToolResult *struct {
						ToolUseID string `json:"toolUseId"`
					} `json:"toolResult"`
				} `json:"content"`
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, fmt.Errorf("messages[%d]: %v", i, err)
			}
			for j, b := range m.Content {
				p := fmt.Sprintf("messages[%d].content[%d]", i, j)
				if b.ToolUse != nil {
					out = append(out, wireCall{path: p, id: b.ToolUse.ToolUseID, hasID: true, name: b.ToolUse.Name})
				}
				if b.ToolResult != nil {
					out = append(out, wireCall{path: p, id: b.ToolResult.ToolUseID, hasID: true, result: true})
				}
			}
		}
	case wire.OpenAIResponses:
		for i, raw := range doc.Input {
			var it struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
				Name   string `json:"name"`
			}
			if err := json.Unmarshal(raw, &it); err != nil {
				return nil, fmt.Errorf("input[%d]: %v", i, err)
			}
			p := fmt.Sprintf("input[%d]", i)
			switch it.Type {
			case "function_call":
				out = append(out, wireCall{path: p, id: it.CallID, hasID: true, name: it.Name})
			case "function_call_output":
				out = append(out, wireCall{path: p, id: it.CallID, hasID: true, result: true})
			}
		}
	case wire.GeminiContents:
		for i, raw := range doc.Contents {
			var m struct {
				Parts []struct {
					Call *struct {
						ID   *string `json:"id"`
						Name string  `json:"name"`
					} `json:"functionCall"`
					Response *struct {
						ID *string `json:"id"`
					} `json:"functionResponse"`
				} `json:"parts"`
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, fmt.Errorf("contents[%d]: %v", i, err)
			}
			for j, part := range m.Parts {
				p := fmt.Sprintf("contents[%d].parts[%d]", i, j)
				// Gemini pairs by name and order; an id, when sent, must be paired.
				if part.Call != nil {
					out = append(out, wireCall{path: p, id: deref(part.Call.ID), hasID: part.Call.ID != nil && *part.Call.ID != "", name: part.Call.Name})
				}
				if part.Response != nil {
					out = append(out, wireCall{path: p, id: deref(part.Response.ID), hasID: part.Response.ID != nil && *part.Response.ID != "", result: true})
				}
			}
		}
	default: // Chat Completions and Mistral
		for i, raw := range doc.Messages {
			var m struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct {
						Name string `json:"name"`
					} `json:"function"`
				} `json:"tool_calls"`
				ToolCallID string `json:"tool_call_id"`
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, fmt.Errorf("messages[%d]: %v", i, err)
			}
			for j, tc := range m.ToolCalls {
				out = append(out, wireCall{path: fmt.Sprintf("messages[%d].tool_calls[%d]", i, j), id: tc.ID, hasID: true, name: tc.Function.Name})
			}
			if m.Role == "tool" {
				out = append(out, wireCall{path: fmt.Sprintf("messages[%d]", i), id: m.ToolCallID, hasID: true, result: true})
			}
		}
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

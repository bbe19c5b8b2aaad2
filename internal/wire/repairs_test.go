package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// renderJSON renders messages (a JSON array) for target and decodes the body.
func renderJSON(t *testing.T, target, messages string, req Request) (Format, map[string]any) {
	t.Helper()
	tg, err := policy.ParseTarget(target)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := transcript.FromMessages([]byte(messages), transcript.Target(tg))
	if err != nil {
		t.Fatal(err)
	}
	p := policy.Resolve(tg)
	f := FormatFor(p)
	body := Render(nil, f, p, tr.Messages, req)
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", body, err)
	}
	return f, v
}

// at walks a decoded JSON value by member names and indexes.
func at(v any, path ...any) any {
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

const (
	userText     = `{"role":"user","content":"go","timestamp":1}`
	callTurn     = `{"role":"assistant","content":[{"type":"text","text":"calling"},{"type":"toolCall","id":"call1","name":"read","arguments":{"path":"a"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"toolUse","timestamp":2}`
	thinkingCall = `{"role":"assistant","content":[{"type":"thinking","thinking":"need a","thinkingSignature":"c2ln"},{"type":"toolCall","id":"call1","name":"read","arguments":{"path":"a"}}],"api":"openai-completions","provider":"deepseek","model":"deepseek-chat","stopReason":"toolUse","timestamp":2}`
	result1      = `{"role":"toolResult","toolCallId":"call1","toolName":"read","content":[{"type":"text","text":"A"}],"isError":false,"timestamp":3}`
	imageResult  = `{"role":"toolResult","toolCallId":"call1","toolName":"read","content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":false,"timestamp":3}`
	answer       = `{"role":"assistant","content":[{"type":"text","text":"done"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"stop","timestamp":5}`
)

func history(msgs ...string) string { return "[" + strings.Join(msgs, ",") + "]" }

// TestReasoningContent: DeepSeek and Kimi / Moonshot tool-call turns carry
// reasoning_content (the thinking text, or "" when the turn has none);
// turns without calls and other Chat Completions targets carry none.
func TestReasoningContent(t *testing.T) {
	cases := []struct {
		name, target, call string
		want               any // reasoning_content of the tool-call turn; nil = absent
	}{
		{"deepseek with thinking", "deepseek/openai-completions/deepseek-chat", thinkingCall, "need a"},
		{"deepseek, call replayed from Anthropic", "deepseek/openai-completions/deepseek-reasoner", callTurn, ""},
		{"moonshot kimi", "moonshot/openai-completions/kimi-k2-thinking", callTurn, ""},
		{"kimi model behind a generic host", "together/openai-completions/moonshotai/Kimi-K2-Thinking", thinkingCall, "need a"},
		{"deepseek model behind vllm", "vllm/openai-completions/deepseek-ai/DeepSeek-V3.2", callTurn, ""},
		{"openai gets none", "openai/openai-completions/gpt-4.1", thinkingCall, nil},
		{"mistral gets none", "mistral/mistral-conversations/mistral-large-latest", thinkingCall, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, body := renderJSON(t, tc.target, history(userText, tc.call, result1, answer), Request{})
			msgs := body["messages"].([]any)
			callMsg := msgs[1].(map[string]any)
			if callMsg["tool_calls"] == nil {
				t.Fatalf("message 1 is not the tool-call turn: %v", callMsg)
			}
			if got, ok := callMsg["reasoning_content"]; tc.want == nil && ok || tc.want != nil && got != tc.want {
				t.Fatalf("reasoning_content = %#v (present %v), want %#v", got, ok, tc.want)
			}
			if _, ok := msgs[len(msgs)-1].(map[string]any)["reasoning_content"]; ok {
				t.Fatal("a turn without calls got reasoning_content")
			}
		})
	}
}

// TestGeminiSignatureSentinel: for Gemini 3 the first unsigned function
// call of each step of the current turn gets the sentinel; signed calls,
// later parallel calls, earlier turns and Gemini 2.5 are left alone.
func TestGeminiSignatureSentinel(t *testing.T) {
	twoCalls := `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"toolCall","id":"c2","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"m","stopReason":"toolUse","timestamp":2}`
	res := func(id string) string {
		return `{"role":"toolResult","toolCallId":"` + id + `","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false,"timestamp":3}`
	}
	step2 := `{"role":"assistant","content":[{"type":"toolCall","id":"c3","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"m","stopReason":"toolUse","timestamp":4}`
	signed := `{"role":"assistant","content":[{"type":"toolCall","id":"c3","name":"read","arguments":{},"thoughtSignature":"cmVhbA=="}],"api":"google-generative-ai","provider":"google","model":"gemini-3-pro-preview","stopReason":"toolUse","timestamp":4}`
	sentinel := "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I=" // base64("skip_thought_signature_validator")
	earlier := history(userText, twoCalls, res("c1"), res("c2"), answer, userText, step2, res("c3"))
	cases := []struct {
		name, model, messages string
		// want: content index and part index → expected thoughtSignature ("" = none)
		want map[[2]int]string
	}{
		{"gemini 3, two steps", "gemini-3-pro-preview", history(userText, twoCalls, res("c1"), res("c2"), step2, res("c3")),
			map[[2]int]string{{1, 0}: sentinel, {1, 1}: "", {3, 0}: sentinel}},
		{"gemini 3.1 flash", "gemini-3.1-flash", history(userText, step2, res("c3")), map[[2]int]string{{1, 0}: sentinel}},
		{"earlier turns untouched", "gemini-3-pro-preview", earlier,
			map[[2]int]string{{1, 0}: "", {1, 1}: "", {5, 0}: sentinel}},
		{"real signature kept", "gemini-3-pro-preview", history(userText, signed, res("c3")), map[[2]int]string{{1, 0}: "cmVhbA=="}},
		{"gemini 2.5 does not validate", "gemini-2.5-pro", history(userText, step2, res("c3")), map[[2]int]string{{1, 0}: ""}},
		{"gemini 3 image model does not validate", "gemini-3-pro-image-preview", history(userText, step2, res("c3")), map[[2]int]string{{1, 0}: ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, body := renderJSON(t, "google/google-generative-ai/"+tc.model, tc.messages, Request{})
			for pos, want := range tc.want {
				p := at(body, "contents", pos[0], "parts", pos[1])
				if at(p, "functionCall") == nil {
					t.Fatalf("contents[%d].parts[%d] is not a function call: %v", pos[0], pos[1], p)
				}
				got, _ := at(p, "thoughtSignature").(string)
				if got != want {
					t.Errorf("contents[%d].parts[%d].thoughtSignature = %q, want %q", pos[0], pos[1], got, want)
				}
			}
		})
	}
}

// TestAnthropicResultsFirst: consecutive results merge into one user
// message, tool_result blocks first, the user's text after them; Bedrock
// does the same with toolResult.
func TestAnthropicResultsFirst(t *testing.T) {
	twoCalls := `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"toolCall","id":"c2","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"m","stopReason":"toolUse","timestamp":2}`
	res := func(id string) string {
		return `{"role":"toolResult","toolCallId":"` + id + `","toolName":"read","content":[{"type":"text","text":"x"}],"isError":true,"timestamp":3}`
	}
	msgs := history(userText, twoCalls, res("c1"), res("c2"), `{"role":"user","content":"and now?","timestamp":4}`)
	cases := []struct {
		target    string
		blockType func(block any) string
	}{
		{"anthropic/anthropic-messages/claude-opus-4-6", func(b any) string { s, _ := at(b, "type").(string); return s }},
		{"amazon-bedrock/bedrock-converse-stream/anthropic.claude-sonnet-4", func(b any) string {
			for k := range b.(map[string]any) {
				return k
			}
			return ""
		}},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			_, body := renderJSON(t, tc.target, msgs, Request{})
			messages := body["messages"].([]any)
			if len(messages) != 3 {
				t.Fatalf("want user, assistant, user; got %d messages", len(messages))
			}
			content := at(messages[2], "content").([]any)
			var kinds []string
			for _, b := range content {
				kinds = append(kinds, tc.blockType(b))
			}
			got := strings.Join(kinds, ",")
			if got != "tool_result,tool_result,text" && got != "toolResult,toolResult,text" {
				t.Fatalf("user message blocks = %s, want the two results first, then the text", got)
			}
		})
	}
	_, body := renderJSON(t, "anthropic/anthropic-messages/claude-opus-4-6", msgs, Request{})
	if at(body, "messages", 2, "content", 0, "is_error") != true {
		t.Error("is_error lost")
	}
}

// TestChatToolImagesMoved: a tool message carries no image; the run's
// images follow in one user message, and an image-only result says so.
func TestChatToolImagesMoved(t *testing.T) {
	for _, target := range []string{"openai/openai-completions/gpt-4.1", "mistral/mistral-conversations/pixtral-large-latest"} {
		t.Run(target, func(t *testing.T) {
			_, body := renderJSON(t, target, history(userText, callTurn, imageResult, answer), Request{})
			msgs := body["messages"].([]any)
			roles := make([]string, len(msgs))
			for i, m := range msgs {
				roles[i], _ = at(m, "role").(string)
			}
			want, images := "user,assistant,tool,user,assistant", msgs[3]
			if strings.HasPrefix(target, "mistral") {
				want, images = "user,assistant,tool,assistant,user,assistant", msgs[4]
			}
			if got := strings.Join(roles, ","); got != want {
				t.Fatalf("roles = %s, want %s", got, want)
			}
			if at(msgs[2], "content") != imageMovedText {
				t.Errorf("tool content = %v", at(msgs[2], "content"))
			}
			if at(images, "content", 0, "image_url", "url") != "data:image/png;base64,iVBORw0KGgo=" {
				t.Errorf("moved image = %v", at(images, "content", 0))
			}
		})
	}
}

// TestMistralBridge: Mistral gets an assistant turn between a tool message
// and a user message; OpenAI does not.
func TestMistralBridge(t *testing.T) {
	msgs := history(userText, callTurn, result1, `{"role":"user","content":"stop","timestamp":4}`)
	for target, want := range map[string]string{
		"mistral/mistral-conversations/mistral-large-latest": "user,assistant,tool,assistant,user",
		"openai/openai-completions/gpt-4.1":                  "user,assistant,tool,user",
	} {
		_, body := renderJSON(t, target, msgs, Request{})
		var roles []string
		for _, m := range body["messages"].([]any) {
			roles = append(roles, at(m, "role").(string))
		}
		if got := strings.Join(roles, ","); got != want {
			t.Errorf("%s: roles = %s, want %s", target, got, want)
		}
	}
}

// TestBedrockToolConfig: the job's tools are declared; without them the
// tools the history calls are, with the permissive schema; a history
// without tool blocks gets no toolConfig.
func TestBedrockToolConfig(t *testing.T) {
	target := "amazon-bedrock/bedrock-converse-stream/anthropic.claude-sonnet-4"
	_, body := renderJSON(t, target, history(userText, callTurn, result1, answer), Request{})
	if at(body, "toolConfig", "tools", 0, "toolSpec", "name") != "read" ||
		at(body, "toolConfig", "tools", 0, "toolSpec", "inputSchema", "json", "type") != "object" {
		t.Fatalf("toolConfig from history = %v", body["toolConfig"])
	}
	_, body = renderJSON(t, target, history(userText, callTurn, result1, answer), Request{Tools: []transcript.Tool{
		{Name: "read", Description: "Read", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		{Name: "write"}}})
	if at(body, "toolConfig", "tools", 1, "toolSpec", "name") != "write" ||
		at(body, "toolConfig", "tools", 0, "toolSpec", "inputSchema", "json", "properties", "path", "type") != "string" {
		t.Fatalf("toolConfig from the job = %v", body["toolConfig"])
	}
	_, body = renderJSON(t, target, history(userText, answer), Request{})
	if _, ok := body["toolConfig"]; ok {
		t.Fatal("toolConfig without tool blocks")
	}
	emptyError := `{"role":"toolResult","toolCallId":"call9","toolName":"grep","content":[],"isError":true,"timestamp":3}`
	_, body = renderJSON(t, target, history(userText, emptyError), Request{})
	if at(body, "toolConfig", "tools", 0, "toolSpec", "name") != "grep" {
		t.Fatalf("toolConfig from a result's toolName = %v", body["toolConfig"])
	}
	if at(body, "messages", 0, "content", 0, "toolResult", "content", 0, "text") != emptyResultText ||
		at(body, "messages", 0, "content", 0, "toolResult", "status") != "error" {
		t.Fatalf("empty error result = %v", at(body, "messages", 0))
	}
}

// TestSystemPrompt: each format puts the system prompt where it belongs.
func TestSystemPrompt(t *testing.T) {
	req := Request{System: json.RawMessage(`[{"type":"text","text":"one"},{"type":"text","text":"two"}]`)}
	cases := map[string][]any{
		"anthropic/anthropic-messages/claude-opus-4-6":       {"system", 1, "text"},
		"amazon-bedrock/bedrock-converse-stream/claude":      {"system", 1, "text"},
		"google/google-generative-ai/gemini-2.5-pro":         {"systemInstruction", "parts", 1, "text"},
		"openai/openai-completions/gpt-4.1":                  {"messages", 0, "content"},
		"mistral/mistral-conversations/mistral-large-latest": {"messages", 0, "content"},
		"openai/openai-responses/gpt-5":                      {"instructions"},
	}
	for target, path := range cases {
		_, body := renderJSON(t, target, history(userText), req)
		got, _ := at(body, path...).(string)
		if got != "two" && got != "one\n\ntwo" {
			t.Errorf("%s: system at %v = %q", target, path, got)
		}
	}
}

// TestCheckOptions rejects what cannot be rendered, per format.
func TestCheckOptions(t *testing.T) {
	many := make([]transcript.Tool, maxOpenAITools+1)
	for i := range many {
		many[i] = transcript.Tool{Name: fmt.Sprintf("tool_%d", i)}
	}
	cases := []struct {
		o    transcript.Options
		f    Format
		want string
	}{
		{transcript.Options{Render: "request", System: json.RawMessage(`"s"`), Tools: []transcript.Tool{{Name: "a"}}}, AnthropicMessages, ""},
		{transcript.Options{Render: "request", System: json.RawMessage(`"  "`)}, BedrockConverse, ""},
		{transcript.Options{Render: "request", System: json.RawMessage(`[]`)}, AnthropicMessages, ""},
		{transcript.Options{Render: "html"}, AnthropicMessages, "options.render"},
		{transcript.Options{System: json.RawMessage(`{"text":"s"}`)}, AnthropicMessages, "options.system"},
		{transcript.Options{System: json.RawMessage(`[{"type":"image"}]`)}, AnthropicMessages, "options.system"},
		{transcript.Options{Tools: []transcript.Tool{{Name: ""}}}, AnthropicMessages, "options.tools[0].name"},
		{transcript.Options{Tools: []transcript.Tool{{Name: "a"}, {Name: "a"}}}, AnthropicMessages, "given twice"},
		{transcript.Options{Tools: []transcript.Tool{{Name: "a", InputSchema: json.RawMessage(`[]`)}}}, AnthropicMessages, "input_schema"},
		{transcript.Options{Tools: []transcript.Tool{{Name: "a", InputSchema: json.RawMessage(`{"type":"string"}`)}}}, GeminiContents, `"type":"object"`},
		{transcript.Options{Tools: []transcript.Tool{{Name: "a", InputSchema: json.RawMessage(`{"type":`)}}}, OpenAIChat, "JSON object"},
		{transcript.Options{Render: "request", Tools: many}, OpenAIChat, "at most 128"},
		{transcript.Options{Render: "request", Tools: many}, OpenAIResponses, "at most 128"},
		{transcript.Options{Render: "request", Tools: many}, AnthropicMessages, ""},
		{transcript.Options{Tools: many}, OpenAIChat, ""}, // no body, no OpenAI rule
	}
	for _, tc := range cases {
		err := CheckOptions(tc.o, tc.f)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckOptions(%s, %s) = %v, want %q", tc.o.System, tc.f, err, tc.want)
		}
	}
}

// TestBlankSystemDropped: an empty or blank system prompt, or blank
// blocks, are never sent; the other blocks stay.
func TestBlankSystemDropped(t *testing.T) {
	for _, sys := range []string{`""`, `" \n "`, `[]`, `[{"type":"text","text":""},{"type":"text","text":"\t"}]`} {
		for _, f := range Formats {
			body := string(Render(nil, f, policy.Policy{}, mustMessages(t, history(userText)), Request{System: json.RawMessage(sys)}))
			for _, member := range []string{`"system"`, `"instructions"`, `"systemInstruction"`, `"role":"system"`} {
				if strings.Contains(body, member) {
					t.Errorf("%s, system %s: %s sent: %s", f, sys, member, body)
				}
			}
		}
	}
	body := string(Render(nil, BedrockConverse, policy.Policy{}, mustMessages(t, history(userText)),
		Request{System: json.RawMessage(`[{"type":"text","text":" "},{"type":"text","text":"Be brief."}]`)}))
	if !strings.HasPrefix(body, `{"system":[{"text":"Be brief."}],`) {
		t.Errorf("blank block not dropped alone: %s", body)
	}
}

// mustMessages decodes a JSON array of messages.
func mustMessages(t *testing.T, messages string) []*transcript.Message {
	t.Helper()
	tr, err := transcript.FromMessages([]byte(messages), transcript.Target{Provider: "anthropic"})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Messages
}

// TestResponsesItems: reasoning items, output-message ids and call|item ids.
func TestResponsesItems(t *testing.T) {
	sig, _ := json.Marshal(`{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"enc"}`)
	turn := `{"role":"assistant","content":[{"type":"thinking","thinking":"s","thinkingSignature":` + string(sig) +
		`},{"type":"text","text":"ok","textSignature":"{\"v\":1,\"id\":\"msg_9\",\"phase\":\"final_answer\"}"},{"type":"toolCall","id":"call_a|fc_b","name":"read","arguments":{}}],"api":"openai-responses","provider":"openai","model":"gpt-5","stopReason":"toolUse","timestamp":2}`
	res := `{"role":"toolResult","toolCallId":"call_a|fc_b","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false,"timestamp":3}`
	_, body := renderJSON(t, "openai/openai-responses/gpt-5", history(userText, turn, res), Request{})
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"input", 1, "type"}, "reasoning"},
		{[]any{"input", 1, "encrypted_content"}, "enc"},
		{[]any{"input", 1, "summary", 0, "text"}, "s"},
		{[]any{"input", 2, "id"}, "msg_9"},
		{[]any{"input", 2, "content", 0, "type"}, "output_text"},
		{[]any{"input", 3, "call_id"}, "call_a"},
		{[]any{"input", 3, "id"}, "fc_b"},
		{[]any{"input", 4, "call_id"}, "call_a"},
	}
	for _, c := range checks {
		if got := at(body, c.path...); got != c.want {
			t.Errorf("%v = %v, want %v", c.path, got, c.want)
		}
	}
}

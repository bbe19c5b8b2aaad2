package wire

import (
	"maps"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestChatCompatibleMembers: what OpenAI-compatible endpoints add to a
// Chat assistant message (docs/real-shapes.md, request bodies, Chat) is
// carried where the model has a place for it and counted by name where it
// has none. Each case failed on 0988e1e, where every one of these members
// was dropped with no count: Groq's reasoning is unsigned thinking, as
// reasoning_content is; a tool call's Gemini thought signature
// (extra_content.google on Gemini's OpenAI endpoint,
// provider_specific_fields in LiteLLM) is the call's thoughtSignature;
// a message's Gemini signature is its text's (text_thought_signature);
// LiteLLM's thinking_blocks are signed thinking (kept for Anthropic and
// Bedrock targets, else counted); the rest of provider_specific_fields is
// counted.
func TestChatCompatibleMembers(t *testing.T) {
	const (
		sig    = "CoQCAePx/16N0V1Ps6JwEV1dw8G2yU4shUWMFiF8uVN+Yc0u9Wy1ZQy6tKQz2ZqCmKR2V8YUjQ=="
		antSig = "EqQBCkYIBxgCKkDl0Qw9s0Bhz5KdVn0Kq5YxM2dY8bL0g6ybR4w0v7H3TnPqFv1i"
		call   = `{"id":"call_Rv8bT2yFqW1mN4kP6sJ0dLxH","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}`
		result = `{"role":"tool","tool_call_id":"call_Rv8bT2yFqW1mN4kP6sJ0dLxH","content":"18°C, cloudy"},{"role":"user","content":"And tomorrow?"}]}`
		user   = `{"model":"m","messages":[{"role":"user","content":"Weather in Paris?"},`
	)
	cases := []struct {
		name     string
		target   Format
		body     string
		contains []string // in the messages
		absent   []string // not in the messages
		dropped  map[string]int
	}{
		{"groq reasoning is unsigned thinking", OpenAIChat,
			user + `{"role":"assistant","content":null,"reasoning":"The user wants the weather; call get_weather.","tool_calls":[` + call + `}]},` + result,
			[]string{`{"type":"thinking","thinking":"The user wants the weather; call get_weather."}`}, nil, map[string]int{}},
		{"reasoning_content wins over reasoning", OpenAIChat,
			user + `{"role":"assistant","content":"Sunny.","reasoning_content":"first","reasoning":"second"},{"role":"user","content":"Thanks"}]}`,
			[]string{`"thinking":"first"`}, []string{"second"}, map[string]int{}},
		{"gemini endpoint: a call's extra_content signature", GeminiContents,
			user + `{"role":"assistant","content":null,"tool_calls":[` + call + `,"extra_content":{"google":{"thought_signature":"` + sig + `"}}}]},` + result,
			[]string{`"name":"get_weather","arguments":{"city":"Paris"},"thoughtSignature":"` + sig + `"}`}, nil, map[string]int{}},
		{"gemini endpoint: a call's signature is carried for other targets too (rules §3.9)", AnthropicMessages,
			user + `{"role":"assistant","content":null,"tool_calls":[` + call + `,"extra_content":{"google":{"thought_signature":"` + sig + `"}}}]},` + result,
			[]string{`"thoughtSignature":"` + sig + `"`}, nil, map[string]int{}},
		{"gemini endpoint: a message's signature on its text, Gemini target", GeminiContents,
			user + `{"role":"assistant","content":"Take an umbrella.","extra_content":{"google":{"thought_signature":"` + sig + `"}}},{"role":"user","content":"Thanks"}]}`,
			[]string{`{"type":"text","text":"Take an umbrella.","thoughtSignature":"` + sig + `"}`}, nil, map[string]int{}},
		{"gemini endpoint: a message's signature counted for another target", OpenAIChat,
			user + `{"role":"assistant","content":"Take an umbrella.","extra_content":{"google":{"thought_signature":"` + sig + `"}}},{"role":"user","content":"Thanks"}]}`,
			[]string{`{"type":"text","text":"Take an umbrella."}`}, []string{sig}, map[string]int{LossTextSignature: 1}},
		{"gemini endpoint: a message's signature with no text to carry it", GeminiContents,
			user + `{"role":"assistant","content":null,"extra_content":{"google":{"thought_signature":"` + sig + `"}},"tool_calls":[` + call + `}]},` + result,
			nil, []string{sig}, map[string]int{LossTextSignature: 1}},
		{"litellm: provider_specific_fields thought_signature on a call", GeminiContents,
			user + `{"role":"assistant","content":null,"tool_calls":[` + call + `,"provider_specific_fields":{"thought_signature":"` + sig + `"}}]},` + result,
			[]string{`"arguments":{"city":"Paris"},"thoughtSignature":"` + sig + `"}`}, nil, map[string]int{}},
		{"litellm: other provider_specific_fields counted", GeminiContents,
			user + `{"role":"assistant","content":"Sunny.","provider_specific_fields":{"citations":[{"url":"https://example.com"}]}},{"role":"user","content":"Thanks"}]}`,
			[]string{`"text":"Sunny."`}, []string{"citations"}, map[string]int{LossProviderFields: 1}},
		{"litellm: thinking_blocks are signed thinking for Anthropic", AnthropicMessages,
			user + `{"role":"assistant","content":null,"reasoning_content":"Need the weather tool.","thinking_blocks":[{"type":"thinking","thinking":"Need the weather tool.","signature":"` + antSig + `"},{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}],"tool_calls":[` + call + `}]},` + result,
			[]string{`{"type":"thinking","thinking":"Need the weather tool.","thinkingSignature":"` + antSig + `"}`, `{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}`},
			[]string{`{"type":"thinking","thinking":"Need the weather tool."}`}, map[string]int{}},
		{"litellm: thinking_blocks counted for Chat, reasoning_content kept", OpenAIChat,
			user + `{"role":"assistant","content":null,"reasoning_content":"Need the weather tool.","thinking_blocks":[{"type":"thinking","thinking":"Need the weather tool.","signature":"` + antSig + `"},{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}],"tool_calls":[` + call + `}]},` + result,
			[]string{`{"type":"thinking","thinking":"Need the weather tool."}`}, []string{antSig, "EmwKAhgBEgy3va3pzix"}, map[string]int{LossSignedThinking: 2}},
	}
	src := transcript.Target{Provider: "litellm", API: "openai-completions", Model: "gemini/gemini-3-pro-preview"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(OpenAIChat, []byte(c.body), src, c.target)
			if err != nil {
				t.Fatal(err)
			}
			got := string(p.Messages)
			for _, s := range c.contains {
				if !strings.Contains(got, s) {
					t.Errorf("missing %s\nin %s", s, got)
				}
			}
			for _, s := range c.absent {
				if strings.Contains(got, s) {
					t.Errorf("has %s\nin %s", s, got)
				}
			}
			if !maps.Equal(p.Dropped, c.dropped) {
				t.Errorf("dropped %v, want %v", p.Dropped, c.dropped)
			}
			if _, err := transcript.FromMessages(p.Messages, src); err != nil {
				t.Errorf("messages do not decode: %v", err)
			}
		})
	}
}

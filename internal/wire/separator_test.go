package wire

import "testing"

// TestTextsJoined: where a format takes one string for a message's texts,
// they are joined with TextSeparator (Chat Completions and Mistral wrote
// "…go1.26RESULT-…" before); where it takes parts, each text is a part.
func TestTextsJoined(t *testing.T) {
	const (
		call    = `{"role":"assistant","content":[{"type":"text","text":"See go.dev/doc/go1.26"},{"type":"text","text":"RESULT-1"},{"type":"toolCall","id":"call_Qm3xR7kT2pLw9vNc4HsY8aBd","name":"read","arguments":{"path":"a"}}],"api":"openai-completions","provider":"openai","model":"gpt-4.1","stopReason":"toolUse","timestamp":2}`
		result2 = `{"role":"toolResult","toolCallId":"call_Qm3xR7kT2pLw9vNc4HsY8aBd","toolName":"read","content":[{"type":"text","text":"line one"},{"type":"text","text":"line two"}],"isError":false,"timestamp":3}`
	)
	h := history(userText, call, result2)
	cases := []struct {
		target string
		path   []any
		want   string
	}{
		{"openai/openai-completions/gpt-4.1", []any{"messages", 1, "content"}, "See go.dev/doc/go1.26\n\nRESULT-1"},
		{"openai/openai-completions/gpt-4.1", []any{"messages", 2, "content"}, "line one\n\nline two"},
		{"mistral/mistral-conversations/mistral-large-latest", []any{"messages", 1, "content"}, "See go.dev/doc/go1.26\n\nRESULT-1"},
		{"openai/openai-responses/gpt-5", []any{"input", 4, "output"}, "line one\n\nline two"},
		{"google/google-generative-ai/gemini-2.5-pro", []any{"contents", 2, "parts", 0, "functionResponse", "response", "output"}, "line one\n\nline two"},
		{"anthropic/anthropic-messages/claude-3-7-sonnet-20250219", []any{"messages", 1, "content", 1, "text"}, "RESULT-1"},
		{"amazon-bedrock/bedrock-converse-stream/anthropic.claude-3-7-sonnet-20250219-v1:0", []any{"messages", 2, "content", 0, "toolResult", "content", 1, "text"}, "line two"},
	}
	for _, tc := range cases {
		_, body := renderJSON(t, tc.target, h, Request{})
		if got := at(body, tc.path...); got != tc.want {
			t.Errorf("%s %v = %q, want %q", tc.target, tc.path, got, tc.want)
		}
	}
}

package audit

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

func TestCheckRequest(t *testing.T) {
	const callID = "call_U8JZpDE0iGXlD6gNCFbaEPFj"
	const itemID = "fc_0d1371c17149d439536b3216fdaeeb975729fae923d5a4fd12"
	tests := []struct {
		name           string
		format         wire.Format
		family         contract.Family
		body           string
		calls, results int
		wantViolation  string // a substring of the first violation; "" for none
	}{
		{"responses: call_id and item id sent apart", wire.OpenAIResponses, contract.OpenAIResponses,
			`{"input":[{"type":"function_call","call_id":"` + callID + `","id":"` + itemID + `","name":"read","arguments":"{}"},{"type":"function_call_output","call_id":"` + callID + `","output":"ok"}]}`,
			1, 1, ""},
		{"responses: the stored form as call_id is too long", wire.OpenAIResponses, contract.OpenAIResponses,
			`{"input":[{"type":"function_call","call_id":"` + callID + "|" + itemID + `","name":"read","arguments":"{}"},{"type":"function_call_output","call_id":"` + callID + "|" + itemID + `","output":"ok"}]}`,
			1, 1, "tool call id"},
		{"anthropic: paired", wire.AnthropicMessages, contract.AnthropicMessages,
			`{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"` + idA + `","name":"read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + idA + `","content":"ok"}]}]}`,
			1, 1, ""},
		{"anthropic: a call without its result", wire.AnthropicMessages, contract.AnthropicMessages,
			`{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"` + idA + `","name":"read","input":{}}]}]}`,
			1, 0, "has no result"},
		{"anthropic: a name it refuses", wire.AnthropicMessages, contract.AnthropicMessages,
			`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"` + idA + `","name":"functions.read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + idA + `","content":"ok"}]}]}`,
			1, 1, "tool name"},
		{"bedrock: a result that answers nothing", wire.BedrockConverse, contract.BedrockConverse,
			`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"` + idB + `","content":[{"text":"ok"}]}}]}]}`,
			0, 1, "answers no call"},
		{"chat: an id over 40 bytes", wire.OpenAIChat, contract.OpenAIChat,
			`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"` + strings.Repeat("c", 41) + `","type":"function","function":{"name":"read","arguments":"{}"}}]},{"role":"tool","tool_call_id":"` + strings.Repeat("c", 41) + `","content":"ok"}]}`,
			1, 1, "tool call id"},
		{"mistral: 9 alphanumerics", wire.MistralChat, contract.Mistral,
			`{"messages":[{"role":"assistant","content":"","tool_calls":[{"id":"` + idMistA + `","type":"function","function":{"name":"read","arguments":"{}"}}]},{"role":"tool","tool_call_id":"` + idMistA + `","name":"read","content":"ok"}]}`,
			1, 1, ""},
		{"gemini: calls without ids pair by name", wire.GeminiContents, contract.Gemini,
			`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"read","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"output":"ok"}}}]}]}`,
			1, 1, ""},
		{"gemini: an id Gemini refuses", wire.GeminiContents, contract.Gemini,
			`{"contents":[{"role":"model","parts":[{"functionCall":{"id":"read_0","name":"read","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"read_0","name":"read","response":{"output":"ok"}}}]}]}`,
			1, 1, "tool call id"},
		{"not JSON", wire.OpenAIChat, contract.OpenAIChat, `{"messages":`, 0, 0, "not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc := checkRequest(tc.format, []byte(tc.body), contract.Of(tc.family))
			if rc.Calls != tc.calls || rc.Results != tc.results || rc.Bytes != len(tc.body) {
				t.Fatalf("calls %d, results %d, bytes %d", rc.Calls, rc.Results, rc.Bytes)
			}
			switch {
			case tc.wantViolation == "" && !rc.OK:
				t.Fatalf("violations %q", rc.Violations)
			case tc.wantViolation != "" && (rc.OK || !strings.Contains(rc.Violations[0], tc.wantViolation)):
				t.Fatalf("violations %q, want one saying %q", rc.Violations, tc.wantViolation)
			}
		})
	}
}

func TestCheckRequestSize(t *testing.T) {
	c := contract.Of(contract.AnthropicMessages)
	c.MaxRequestBytes = 64
	body := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 64) + `"}]}`
	rc := checkRequest(wire.AnthropicMessages, []byte(body), c)
	if rc.OK || !strings.Contains(rc.Violations[0], "over the 64 bytes") {
		t.Fatalf("violations %q", rc.Violations)
	}
}

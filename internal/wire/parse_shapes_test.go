package wire

import (
	"maps"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestParseWritesEachTurnOnce: the messages Parse writes for the shapes
// where a turn's blocks come from several places (results and user blocks
// of one content, images after a response, assistant turns joined across
// a user message the model holds nothing of), byte for byte.
func TestParseWritesEachTurnOnce(t *testing.T) {
	src := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	cases := []struct {
		name    string
		f       Format
		body    string
		want    string
		dropped map[string]int
	}{
		{"an empty user message does not split the assistant turn", OpenAIChat,
			`{"messages":[{"role":"user","content":"look"},{"role":"assistant","content":"one"},{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklGRiQAAABXQVZF","format":"wav"}}]},{"role":"assistant","content":"two","tool_calls":[{"id":"call_Xq7bN2mKp9LwR4tY8vZc3sHd","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.txt\"}"}}]},{"role":"tool","tool_call_id":"call_Xq7bN2mKp9LwR4tY8vZc3sHd","content":"done"}]}`,
			`[{"role":"user","content":[{"type":"text","text":"look"}]},{"role":"assistant","content":[{"type":"text","text":"one"},{"type":"text","text":"two"},{"type":"toolCall","id":"call_Xq7bN2mKp9LwR4tY8vZc3sHd","name":"read","arguments":{"path":"a.txt"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_Xq7bN2mKp9LwR4tY8vZc3sHd","toolName":"read","content":[{"type":"text","text":"done"}],"isError":false}]`,
			map[string]int{"audio": 1}},
		{"results before the user text around them", AnthropicMessages,
			`{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"text","text":"reading"},{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9X","name":"read","input":{"path":"a.txt"}}]},{"role":"user","content":[{"type":"text","text":"before"},{"type":"tool_result","tool_use_id":"toolu_01A09q90qw90lq917835lq9X","content":[{"type":"text","text":"file body"}]},{"type":"text","text":"after"}]}]}`,
			`[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"text","text":"reading"},{"type":"toolCall","id":"toolu_01A09q90qw90lq917835lq9X","name":"read","arguments":{"path":"a.txt"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"toolUse"},{"role":"toolResult","toolCallId":"toolu_01A09q90qw90lq917835lq9X","toolName":"read","content":[{"type":"text","text":"file body"}],"isError":false},{"role":"user","content":[{"type":"text","text":"before"},{"type":"text","text":"after"}]}]`,
			nil},
		{"an image after a response goes to it, one before to the user", GeminiContents,
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"calling"},{"functionCall":{"name":"shot","args":{}}}]},{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},{"functionResponse":{"name":"shot","response":{"output":"taken"}}},{"inlineData":{"mimeType":"image/png","data":"AAAA"}},{"text":"what is it?"}]}]}`,
			`[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"text","text":"calling"},{"type":"toolCall","id":"shot_0","name":"shot","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"toolUse"},{"role":"toolResult","toolCallId":"shot_0","toolName":"shot","content":[{"type":"text","text":"taken"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"isError":false},{"role":"user","content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"text","text":"what is it?"}]}]`,
			nil},
		{"an audio part alone is no user message", OpenAIResponses,
			`{"input":[{"role":"user","content":"q"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]},{"type":"message","role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklGRiQAAABXQVZF","format":"wav"}}]},{"type":"function_call","call_id":"call_Xq7bN2mKp9LwR4tY8vZc3sHd","name":"read","arguments":"{}"},{"type":"function_call_output","call_id":"call_Xq7bN2mKp9LwR4tY8vZc3sHd","output":"ok"}]}`,
			`[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"toolCall","id":"call_Xq7bN2mKp9LwR4tY8vZc3sHd","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_Xq7bN2mKp9LwR4tY8vZc3sHd","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]`,
			map[string]int{"audio": 1}},
		{"a json result block is its compact text; status error", BedrockConverse,
			`{"messages":[{"role":"user","content":[{"text":"go"}]},{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q","name":"read","input":{}}}]},{"role":"user","content":[{"text":"first"},{"toolResult":{"toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q","content":[{"text":"body"},{"json":{"n": 1}}],"status":"error"}}]}]}`,
			`[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"toolCall","id":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"toolUse"},{"role":"toolResult","toolCallId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q","toolName":"read","content":[{"type":"text","text":"body"},{"type":"text","text":"{\"n\":1}"}],"isError":true},{"role":"user","content":[{"type":"text","text":"first"}]}]`,
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(c.f, []byte(c.body), src, c.f)
			if err != nil {
				t.Fatal(err)
			}
			if string(p.Messages) != c.want {
				t.Errorf("messages\n got %s\nwant %s", p.Messages, c.want)
			}
			if len(p.Dropped)+len(c.dropped) > 0 && !maps.Equal(p.Dropped, c.dropped) {
				t.Errorf("dropped %v, want %v", p.Dropped, c.dropped)
			}
		})
	}
}

package wire_test

import (
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// Render writes a sanitized history as the body of the target's request
// (job option render: request): FormatFor picks the format from the
// target's API, and the model parameters stay the runner's.
func ExampleRender() {
	target := transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}
	tr, err := transcript.FromMessages([]byte(`[
		{"role":"user","content":"Read a.txt"},
		{"role":"assistant","content":[{"type":"toolCall","id":"call_q3XbT8sLw2NfVk9RmZa6HcYd","name":"read","arguments":{"path":"a.txt"}}],"stopReason":"toolUse"},
		{"role":"toolResult","toolCallId":"call_q3XbT8sLw2NfVk9RmZa6HcYd","toolName":"read","content":[{"type":"text","text":"hello"}],"isError":false}
	]`), target)
	if err != nil {
		panic(err)
	}
	p := policy.Resolve(target)
	f := wire.FormatFor(p)
	fmt.Println(f)
	fmt.Println(string(wire.Render(nil, f, p, tr.Messages, wire.Request{System: []byte(`"Be brief."`)})))
	// Output:
	// openai-chat-completions
	// {"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Read a.txt"},{"role":"assistant","tool_calls":[{"id":"call_q3XbT8sLw2NfVk9RmZa6HcYd","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.txt\"}"}}]},{"role":"tool","tool_call_id":"call_q3XbT8sLw2NfVk9RmZa6HcYd","content":"hello"}]}
}

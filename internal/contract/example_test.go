package contract_test

import (
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Check reads a message list against a target family's contract and lists
// what the target would refuse; the worker runs it last (the stage
// sendable.Contract). Here an Anthropic history whose tool call has no
// result. A contract also holds the id shapes the target accepts: an
// OpenAI Responses call id in pi-ai's stored form is not one of
// Anthropic's.
func ExampleCheck() {
	target := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	tr, err := transcript.FromMessages([]byte(`[
		{"role":"user","content":"Read a.txt"},
		{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01XFDUDzCKPzKXmYSn5Eoyzi","name":"read","arguments":{"path":"a.txt"}}],"stopReason":"toolUse"}
	]`), target)
	if err != nil {
		panic(err)
	}
	res := contract.Check(tr.Messages, contract.Of(contract.AnthropicMessages), 0)
	fmt.Println(res.OK(), res.Total)
	for _, v := range res.Violations {
		fmt.Println(v.Rule, "-", v)
	}
	ids := contract.Of(contract.AnthropicMessages).ToolCallIDs
	fmt.Println(ids.Valid("toolu_01XFDUDzCKPzKXmYSn5Eoyzi"), ids.Valid("call_q3XbT8sLw2NfVk9RmZa6HcYd|fc_68a4f0c2b1e9d7350a6c8e2f4b1d9a7c3e5f0b2d4a6c8e1f3a"))
	// Output:
	// false 1
	// tool_pairing - messages[1].content[0]: tool call "toolu_01XFDUDzCKPzKXmYSn5Eoyzi" has no tool result right after its turn
	// true false
}

package toolcalls

import (
	"strings"
	"testing"
)

// Ids and turns of real shapes (issue 20): a GPT-5 call as pi-ai stores it,
// the same id after tool_call_ids_early rewrote it for a Chat target, and an
// Anthropic turn's tool_use id.
const (
	piRespID   = "call_5URYX45jqRO25g3uK5kbAAeg|fc_4afed66aaad2fc267163268998530877710984ae48d55c34db"
	chatID     = "call5URYX45jqRO25g3uK5kbAAegfc4afed66aaa"
	toolUseID  = "toolu_014B3Teb4zWbqVaX7RHL0eR9"
	gptThought = `{"type":"thinking","thinking":"**Listing**","thinkingSignature":"{\"id\":\"rs_53f9578733eda751e20908b89c2b015572ed106ce29e9a3e64\",\"type\":\"reasoning\",\"encrypted_content\":\"gAAAAABpKzX1\",\"summary\":[]}"}`
	claudeSig  = `{"type":"thinking","thinking":"Listing the files.","thinkingSignature":"EpMCCkYIBxgCKkDx7TtXb3Jh0pQKqWm2ZlV9yGgQ"}`
)

// callWith is a bash call with complete arguments and pi-ai's leftover
// partialJson.
func callWith(id, partial string) string {
	return `{"type":"toolCall","id":"` + id + `","name":"bash","arguments":{"command":"ls -la"},"partialJson":"` + partial + `"}`
}

// TestCompleteArgumentsKeepTheCall: a call whose arguments are complete is
// never dropped for a leftover partialJson, whatever its id became; a
// partialJson that is not the whole object (a stream cut mid-call) still
// drops it (issue 20).
func TestCompleteArgumentsKeepTheCall(t *testing.T) {
	const whole, cut = `{\"command\":\"ls -la\"}`, `{\"command\":\"ls`
	kept := `{"type":"toolCall","id":"` + chatID + `","name":"bash","arguments":{"command":"ls -la"}}`
	cases := []idCase{
		{name: "chat target, id already rewritten", target: completions,
			in:   `[{"role":"assistant","stopReason":"toolUse","content":[` + callWith(chatID, whole) + `]}]`,
			want: `[{"role":"assistant","stopReason":"toolUse","content":[` + kept + `]}]`},
		{name: "gemini target, no stopReason", target: google,
			in:   `[{"role":"assistant","content":[` + callWith(chatID, whole) + `]}]`,
			want: `[{"role":"assistant","content":[` + kept + `]}]`},
		{name: "mistral target, stopReason stop", target: mistral,
			in:   `[{"role":"assistant","stopReason":"stop","content":[` + callWith(chatID, "") + `]}]`,
			want: `[{"role":"assistant","stopReason":"stop","content":[` + kept + `]}]`},
		{name: "a cut stream is dropped", target: completions,
			in:   `[{"role":"user","content":"u"},{"role":"assistant","stopReason":"toolUse","content":[{"type":"text","text":"t"},` + callWith(chatID, cut) + `]}]`,
			want: `[{"role":"user","content":"u"},{"role":"assistant","stopReason":"toolUse","content":[{"type":"text","text":"t"}]}]`},
		{name: "an aborted turn's call is dropped", target: completions,
			in:   `[{"role":"user","content":"u"},{"role":"assistant","stopReason":"aborted","content":[{"type":"text","text":"t"},` + callWith(chatID, whole) + `]}]`,
			want: `[{"role":"user","content":"u"},{"role":"assistant","stopReason":"aborted","content":[{"type":"text","text":"t"}]}]`},
		{name: "anthropic target: GPT reasoning does not freeze the turn", target: anthropic,
			in: `[{"role":"user","content":"u"},{"role":"assistant","api":"openai-responses","provider":"openai","model":"gpt-5","stopReason":"toolUse","content":[` +
				gptThought + `,` + callWith(piRespID, whole) + `,{"type":"toolCall","id":"` + piRespID + `x","name":" read ","arguments":{}}]}]`,
			want: `[{"role":"user","content":"u"},{"role":"assistant","api":"openai-responses","provider":"openai","model":"gpt-5","stopReason":"toolUse","content":[` +
				gptThought + `,{"type":"toolCall","id":"` + piRespID + `","name":"bash","arguments":{"command":"ls -la"}},{"type":"toolCall","id":"` + piRespID + `x","name":"read","arguments":{}}]}]`},
		{name: "bedrock target: GPT reasoning without an api, by provider", target: bedrock,
			in: `[{"role":"user","content":"u"},{"role":"assistant","provider":"openai","stopReason":"toolUse","content":[` +
				gptThought + `,` + callWith(piRespID, whole) + `]}]`,
			want: `[{"role":"user","content":"u"},{"role":"assistant","provider":"openai","stopReason":"toolUse","content":[` +
				gptThought + `,{"type":"toolCall","id":"` + piRespID + `","name":"bash","arguments":{"command":"ls -la"}}]}]`},
		{name: "anthropic target: its own signed turn stays byte-identical, partialJson and all", target: anthropic,
			in: `[{"role":"user","content":"u"},{"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"toolUse","content":[` +
				claudeSig + `,` + callWith(toolUseID, whole) + `]}]`},
		{name: "anthropic target: its own signed turn with a cut call is dropped whole", target: anthropic,
			in: `[{"role":"user","content":"u"},{"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"toolUse","content":[` +
				claudeSig + `,` + callWith(toolUseID, cut) + `]}]`,
			want: `[{"role":"user","content":"u"}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, ToolCallInputs()) })
	}
}

// TestAnsweredCallIsComplete is issue 29's finished call: a leftover
// partialJson that does not parse, complete arguments, a turn that ended
// normally and a result for the call: the tool ran, so the call is kept
// (only its buffer goes). OpenClaw drops it; this goes further on purpose.
// Without a result, or in an aborted turn, it is still dropped.
func TestAnsweredCallIsComplete(t *testing.T) {
	const leftover = `{\"path\":\"/\"`
	call := func(id string) string {
		return `{"type":"toolCall","id":"` + id + `","name":"read","arguments":{"path":"/"},"partialJson":"` + leftover + `"}`
	}
	kept := func(id string) string {
		return `{"type":"toolCall","id":"` + id + `","name":"read","arguments":{"path":"/"}}`
	}
	result := func(id string) string {
		return `{"role":"toolResult","toolCallId":"` + id + `","toolName":"read","content":[{"type":"text","text":"EISDIR: illegal operation on a directory, read"}],"isError":true,"timestamp":1796031002100}`
	}
	user := `{"role":"user","content":"What is in /?","timestamp":1796031000000}`
	turn := func(stop, c string) string {
		return `{"role":"assistant","api":"openai-responses","provider":"openai","model":"gpt-5","stopReason":"` + stop + `","content":[{"type":"text","text":"Reading."},` + c + `],"timestamp":1796031002000}`
	}
	bare := `{"role":"assistant","api":"openai-responses","provider":"openai","model":"gpt-5","stopReason":"%s","content":[{"type":"text","text":"Reading."}],"timestamp":1796031002000}`
	cases := []idCase{
		{name: "responses target: answered call kept", target: responses,
			in:   `[` + user + `,` + turn("toolUse", call(piRespID)) + `,` + result(piRespID) + `]`,
			want: `[` + user + `,` + turn("toolUse", kept(piRespID)) + `,` + result(piRespID) + `]`},
		{name: "chat target: answered call kept under its rewritten id", target: completions,
			in:   `[` + user + `,` + turn("toolUse", call(chatID)) + `,` + result(chatID) + `]`,
			want: `[` + user + `,` + turn("toolUse", kept(chatID)) + `,` + result(chatID) + `]`},
		{name: "no result: dropped", target: responses,
			in:   `[` + user + `,` + turn("toolUse", call(piRespID)) + `]`,
			want: `[` + user + `,` + strings.Replace(bare, "%s", "toolUse", 1) + `]`},
		{name: "an earlier call's result with the same id does not answer it", target: google,
			in: `[` + user + `,` + turn("toolUse", kept("read_0")) + `,` + result("read_0") + `,` + user + `,` + turn("toolUse", call("read_0")) + `]`,
			want: `[` + user + `,` + turn("toolUse", kept("read_0")) + `,` + result("read_0") + `,` + user + `,` +
				strings.Replace(bare, "%s", "toolUse", 1) + `]`},
		{name: "aborted turn: dropped even with a result", target: responses,
			in:   `[` + user + `,` + turn("aborted", call(piRespID)) + `,` + result(piRespID) + `]`,
			want: `[` + user + `,` + strings.Replace(bare, "%s", "aborted", 1) + `,` + result(piRespID) + `]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, ToolCallInputs()) })
	}
}

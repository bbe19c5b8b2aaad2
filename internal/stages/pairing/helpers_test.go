package pairing

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// openAIResponses is the Responses-family target of vectors V10 and V25-V27.
var openAIResponses = transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5.2"}

// Fixture builders: each returns one message or block as a JSON literal,
// written out in full so the expected outputs stay readable by hand.

// tc is a toolCall block.
func tc(id, name string) string {
	return `{"type":"toolCall","id":` + strconv.Quote(id) + `,"name":` + strconv.Quote(name) + `,"arguments":{}}`
}

// asst is an assistant message with the given blocks, stopReason and timestamp.
func asst(stop string, ts int, blocks ...string) string {
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `],"stopReason":` + strconv.Quote(stop) + `,"timestamp":` + strconv.Itoa(ts) + `}`
}

// user is a user message with string content.
func user(text string) string {
	return `{"role":"user","content":` + strconv.Quote(text) + `}`
}

// res is a real tool result.
func res(id, name, text string) string {
	return `{"role":"toolResult","toolCallId":` + strconv.Quote(id) + `,"toolName":` + strconv.Quote(name) + `,"content":[{"type":"text","text":` + strconv.Quote(text) + `}],"isError":false}`
}

// syn is the synthetic missing result spec §3.7 shapes; ts "" leaves the
// timestamp out.
func syn(id, name, text, ts string) string {
	s := `{"role":"toolResult","toolCallId":` + strconv.Quote(id) + `,"toolName":` + strconv.Quote(name) +
		`,"content":[{"type":"text","text":` + strconv.Quote(text) + `}],"details":{"openclawSyntheticMissingToolResult":true,"reason":"missing_tool_result"},"isError":true`
	if ts != "" {
		s += `,"timestamp":` + ts
	}
	return s + `}`
}

// arr joins messages into a JSON array.
func arr(msgs ...string) string { return "[" + strings.Join(msgs, ",") + "]" }

// runRepairJSON runs the repair alone with the given options and returns
// the output array and the counts.
func runRepairJSON(tb testing.TB, in string, opts repairOptions) ([]byte, repairCounts) {
	tb.Helper()
	t, err := transcript.FromMessages([]byte(in), transcript.Target(stagetest.Anthropic))
	if err != nil {
		tb.Fatalf("fixture: %v", err)
	}
	out, c := repair(t.Messages, opts)
	t.Messages = out
	return t.MessagesJSON(), c
}

package turns

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
)

func TestProviderTurns(t *testing.T) {
	bedrock := stagetest.Case{Target: bedrockTarget}
	google := stagetest.Case{Target: googleTarget, Settings: stage.Settings{Request: settings.Request{NowMs: new(int64(7))}}}
	cases := []ruleCase{
		{
			name:   "Bedrock: blank and text-less text blocks removed, empty contents filled",
			c:      bedrock,
			in:     `[{"role":"user","content":[{"type":"text","text":" "},{"type":"text"}]},{"role":"assistant","content":[],"stopReason":"aborted"},{"role":"toolResult","toolCallId":"c","content":""},{"role":"user","content":"ok"},{"role":"assistant","content":[{"type":"text","text":""},{"type":"text","text":"fine"}]}]`,
			want:   `[{"role":"user","content":[{"type":"text","text":"[empty content omitted]"}]},{"role":"assistant","content":` + sentinel + `,"stopReason":"aborted"},{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":"[empty content omitted]"}]},{"role":"user","content":"ok"},{"role":"assistant","content":[{"type":"text","text":"fine"}]}]`,
			report: map[string]int{"content_fixed": 4},
		},
		{
			name: "Gemini: assistant first gets the bootstrap turn, consecutive turns merged",
			c:    google,
			in:   `[{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]},{"role":"user","content":"q"},{"role":"user","content":"r"}]`,
			want: `[{"role":"user","content":"(session bootstrap)","timestamp":7},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},{"role":"user","content":[{"type":"text","text":"q"},{"type":"text","text":"r"}]}]`,
		},
		{
			name: "tool results are the user side: nothing to do",
			c:    bedrock,
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"r"}]},{"role":"user","content":"more"},{"role":"assistant","content":[{"type":"text","text":"done"}]}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"r"}]},{"role":"user","content":"more"},{"role":"assistant","content":[{"type":"text","text":"done"}]}]`,
		},
		{
			name:   "role-less entries are dropped; the bootstrap goes first",
			in:     `[null,{"role":"assistant","content":[{"type":"text","text":"a"}],"timestamp":3},{}]`,
			want:   `[{"role":"user","content":"(session bootstrap)","timestamp":3},{"role":"assistant","content":[{"type":"text","text":"a"}],"timestamp":3}]`,
			report: map[string]int{"roleless_dropped": 2, "bootstrap": 1},
		},
		{
			name:   "chain fuzz: a role-less entry between turns that merge cannot end up between a call and its result",
			in:     `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"a"}]},{},{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"r"}]}]`,
			want:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"r"}]}]`,
			report: map[string]int{"roleless_dropped": 1, "assistants_merged": 1},
		},
		{
			name: "fuzz: users without content merge into an empty content, which is filled",
			c:    google,
			in:   `[{"role":"user"},{"role":"user"}]`,
			want: `[{"role":"user","content":[{"type":"text","text":"[empty content omitted]"}]}]`,
		},
		{
			name: "a merge that gives calls thinking is checked again; omitted calls lose their results, neighbours merge",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"Eq"}]},{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","toolName":"write","content":[{"type":"text","text":"r"}]},{"role":"assistant","content":[{"type":"text","text":"done"}]}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"},{"type":"text","text":"done"}]}]`,
		},
		{
			name: "OpenAI Responses is not a strict target: unchanged",
			c:    stagetest.Case{Target: openaiTarget},
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[]},{"role":"assistant","content":[{"type":"text","text":""}]}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[]},{"role":"assistant","content":[{"type":"text","text":""}]}]`,
		},
		{
			name: "OpenAI Responses, assistant first with a later user turn: no bootstrap",
			c:    stagetest.Case{Target: openaiTarget},
			in:   `[{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"user","content":"q"}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"user","content":"q"}]`,
		},
		{
			name:   "issue 29: any target, turns but no user-side turn: the bootstrap turn goes first",
			c:      stagetest.Case{Target: openaiTarget},
			in:     `[{"role":"assistant","content":[{"type":"toolCall","id":"call_3f9a1c2b7d8e4f60a1b2c3d4","name":"read","arguments":{"path":"HEARTBEAT.md"}}],"timestamp":5},{"role":"toolResult","toolCallId":"call_3f9a1c2b7d8e4f60a1b2c3d4","toolName":"read","content":[{"type":"text","text":"ok"}]}]`,
			want:   `[{"role":"user","content":"(session bootstrap)","timestamp":5},{"role":"assistant","content":[{"type":"toolCall","id":"call_3f9a1c2b7d8e4f60a1b2c3d4","name":"read","arguments":{"path":"HEARTBEAT.md"}}],"timestamp":5},{"role":"toolResult","toolCallId":"call_3f9a1c2b7d8e4f60a1b2c3d4","toolName":"read","content":[{"type":"text","text":"ok"}]}]`,
			report: map[string]int{"bootstrap": 1},
		},
		{
			name: "a custom message is the user side: no bootstrap",
			c:    stagetest.Case{Target: openaiTarget},
			in:   `[{"role":"custom","customType":"heartbeat","content":"Read HEARTBEAT.md","display":false,"timestamp":4},{"role":"assistant","content":[{"type":"text","text":"a"}]}]`,
			want: `[{"role":"custom","customType":"heartbeat","content":"Read HEARTBEAT.md","display":false,"timestamp":4},{"role":"assistant","content":[{"type":"text","text":"a"}]}]`,
		},
		{
			name: "nothing a provider is sent: left to empty_history",
			c:    stagetest.Case{Target: openaiTarget},
			in:   `[{"role":"bashExecution","command":"ls","output":"a","exitCode":0,"cancelled":false,"truncated":false,"timestamp":3}]`,
			want: `[{"role":"bashExecution","command":"ls","output":"a","exitCode":0,"cancelled":false,"truncated":false,"timestamp":3}]`,
		},
	}
	runCases(t, cases, ProviderTurns())
}

func FuzzProviderTurns(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"assistant","content":[]},{"role":"assistant","content":" "},{"role":"user","content":[{"type":"text"}]},{"role":"user","content":""}]`,
		`[null,{"role":"toolResult","content":[]},{"role":"assistant","content":[{"type":"text","text":"a"}]}]`,
	}, ProviderTurns())
}

// Issue 11's trap: ProviderTurns alone merges a blank string content with
// a text block, and the merged content must read as blocks afterwards, not
// as the old blank string that the filler would replace.
func TestProviderTurnsMergedBlankStringKeepsTheText(t *testing.T) {
	runCases(t, []ruleCase{{
		name: "blank string then a text: merged, the blank block removed, the text kept",
		c:    stagetest.Case{Target: bedrockTarget},
		in:   `[{"role":"user","content":"q"},{"role":"assistant","content":"   "},{"role":"assistant","content":[{"type":"text","text":"real answer"}]}]`,
		want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"real answer"}]}]`,
	}}, ProviderTurns())
}

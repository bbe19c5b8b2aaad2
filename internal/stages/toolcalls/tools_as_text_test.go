package toolcalls

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
)

func TestToolsAsText(t *testing.T) {
	noTools := stagetest.Case{Target: stagetest.Anthropic, Settings: stage.Settings{Request: settings.Request{ToolsOffered: new(false)}}}
	for _, tc := range []struct {
		name, in, want string
	}{
		{
			name: "call and result become text; the image stays in the user turn",
			in: `[{"role":"user","content":"go"},
				{"role":"assistant","content":[{"type":"text","text":"looking"},{"type":"toolCall","id":"c1","name":"read","arguments":{ "path" : "a.go" }}],"stopReason":"toolUse"},
				{"role":"toolResult","toolCallId":"c1","toolName":"read","isError":false,"details":{"x":1},"timestamp":5,"content":[{"type":"text","text":"line 1"},{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"line 2"}]}]`,
			want: `[{"role":"user","content":"go"},
				{"role":"assistant","content":[{"type":"text","text":"looking"},{"type":"text","text":"[tool call] read({\"path\":\"a.go\"})"}],"stopReason":"toolUse"},
				{"role":"user","content":[{"type":"text","text":"[tool result] read\nline 1\nline 2"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"timestamp":5}]`,
		},
		{
			name: "stringified arguments, legacy role, error, string content, no arguments",
			in: `[{"role":"assistant","content":[{"type":"functionCall","id":"c1","name":"exec","arguments":"{\"cmd\":\"ls\"}"},{"type":"toolUse","id":"c2","name":"x"}]},
				{"role":"tool","toolCallId":"c1","toolName":"exec","isError":true,"content":"boom"},
				{"role":"toolResult","toolCallId":"c2","content":[]}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"[tool call] exec({\"cmd\":\"ls\"})"},{"type":"text","text":"[tool call] x({})"}]},
				{"role":"user","content":[{"type":"text","text":"[tool result, error] exec\nboom"}]},
				{"role":"user","content":[{"type":"text","text":"[tool result] unknown\n(no output)"}]}]`,
		},
		{
			name: "a result's document stays in the user turn too",
			in: `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"fetch","arguments":{}}],"stopReason":"toolUse"},
				{"role":"toolResult","toolCallId":"c1","toolName":"fetch","content":[{"type":"document","data":"JVBERi0xLjQK","mimeType":"application/pdf","name":"a.pdf"}]}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"[tool call] fetch({})"}],"stopReason":"toolUse"},
				{"role":"user","content":[{"type":"text","text":"[tool result] fetch\n(no output)"},{"type":"document","data":"JVBERi0xLjQK","mimeType":"application/pdf","name":"a.pdf"}]}]`,
		},
		{
			name: "a tool-result block in a user turn",
			in:   `[{"role":"user","content":[{"type":"text","text":"a"},{"type":"tool_result","tool_use_id":"c1","is_error":true,"content":[{"type":"text","text":"bad"}]}]}]`,
			want: `[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"[tool result, error] unknown\nbad"}]}]`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := noTools.Apply(t, tc.in, ToolsAsText())
			stagetest.Equal(t, res.JSON, tc.want)
			noTools.CheckProperties(t, []byte(tc.in), ToolsAsText())
		})
	}
	offered := stagetest.Case{Target: stagetest.Anthropic}
	in := `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":"x"}]`
	if res := offered.Apply(t, in, ToolsAsText()); string(res.JSON) != stagetest.Compact(t, in) {
		t.Errorf("tools offered (the default) changed the history: %s", res.JSON)
	}
}

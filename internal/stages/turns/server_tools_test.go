package turns

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
)

// Server-tool blocks as Anthropic returns them (platform.claude.com,
// "Server tools", "Web search tool", "Code execution tool").
const (
	srvUse    = `{"type":"server_tool_use","id":"srvtoolu_01A","name":"web_search","input":{"query":"go 1.26 release"}}`
	srvResult = `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01A","content":[{"type":"web_search_result","url":"https://go.dev/doc/go1.26","title":"Go 1.26 Release Notes","encrypted_content":"EqgfCioIARgB","page_age":"2 days"}]}`
	codeUse   = `{"type":"server_tool_use","id":"srvtoolu_01B","name":"code_execution","input":{"code":"print(6*7)"}}`
	codeRes   = `{"type":"code_execution_tool_result","tool_use_id":"srvtoolu_01B","content":{"type":"code_execution_result","stdout":"42\n","stderr":"","return_code":0}}`
)

func TestServerTools(t *testing.T) {
	openai := stagetest.Case{Target: copilotTarget}
	noTools := stagetest.Case{Target: anthropicTarget, Settings: stage.Settings{Request: settings.Request{ToolsOffered: new(false)}}}
	runCases(t, []ruleCase{
		{
			name: "a paired use and result stay as they are",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[` + srvUse + `,` + srvResult + `,{"type":"text","text":"Go 1.26 is out."}]}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[` + srvUse + `,` + srvResult + `,{"type":"text","text":"Go 1.26 is out."}]}]`,
		},
		{
			// anthropics/claude-code #62577: an advisor_tool_result whose
			// server_tool_use is not in the turn
			name:   "an orphan advisor result is dropped",
			in:     `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"advisor_tool_result","tool_use_id":"srvtoolu_09Z","content":{"type":"text","text":"advice"}},{"type":"text","text":"done"}]}]`,
			want:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"done"}]}]`,
			report: map[string]int{"orphan_results": 1},
		},
		{
			name:   "a result before its use: both go",
			in:     `[{"role":"user","content":"q"},{"role":"assistant","content":[` + srvResult + `,` + srvUse + `,{"type":"text","text":"x"}]}]`,
			want:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"x"}]}]`,
			report: map[string]int{"orphan_results": 1, "unanswered_uses": 1},
		},
		{
			name:   "a use without its result (a paused turn) is dropped; so is a result in the next turn",
			in:     `[{"role":"user","content":"q"},{"role":"assistant","content":[` + srvUse + `,{"type":"text","text":"x"}]},{"role":"user","content":[` + srvResult + `,{"type":"text","text":"go on"}]}]`,
			want:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"x"}]},{"role":"user","content":[{"type":"text","text":"go on"}]}]`,
			report: map[string]int{"orphan_results": 1, "unanswered_uses": 1},
		},
		{
			name:   "a second result and a use without the srvtoolu_ prefix go",
			in:     `[{"role":"assistant","content":[` + srvUse + `,` + srvResult + `,` + srvResult + `,{"type":"server_tool_use","id":"toolu_1","name":"web_search","input":{}},{"type":"web_search_tool_result","tool_use_id":"toolu_1","content":[]}]}]`,
			want:   `[{"role":"assistant","content":[` + srvUse + `,` + srvResult + `]}]`,
			report: map[string]int{"orphan_results": 2, "unanswered_uses": 1},
		},
		{
			name: "other targets get the query and the result's text",
			c:    openai,
			in:   `[{"role":"assistant","content":[` + srvUse + `,` + srvResult + `,` + codeUse + `,` + codeRes + `]}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"[server tool call] web_search({\"query\":\"go 1.26 release\"})"},` +
				`{"type":"text","text":"[server tool result] web_search\nGo 1.26 Release Notes\nhttps://go.dev/doc/go1.26"},` +
				`{"type":"text","text":"[server tool call] code_execution({\"code\":\"print(6*7)\"})"},` +
				`{"type":"text","text":"[server tool result] code_execution\n42\n"}]}]`,
			report: map[string]int{"as_text": 4},
		},
		{
			name:   "a result with nothing readable is dropped",
			c:      openai,
			in:     `[{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","encrypted_content":"Eqg"}]}]}]`,
			want:   `[{"role":"assistant","content":[{"type":"text","text":"a"}]}]`,
			report: map[string]int{"dropped": 1},
		},
		{
			name: "no tools offered: Anthropic gets text too",
			c:    noTools,
			in:   `[{"role":"assistant","content":[` + codeUse + `,` + codeRes + `]}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"[server tool call] code_execution({\"code\":\"print(6*7)\"})"},{"type":"text","text":"[server tool result] code_execution\n42\n"}]}]`,
		},
		{
			name: "client tool results are not server results",
			in:   `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]`,
			want: `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]`,
		},
	}, ServerTools())
}

func FuzzServerTools(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"assistant","content":[` + srvUse + `,` + srvResult + `]}]`,
		`[{"role":"assistant","content":[` + srvResult + `,` + codeUse + `]},{"role":"user","content":[` + codeRes + `]}]`,
	}, ServerTools())
}

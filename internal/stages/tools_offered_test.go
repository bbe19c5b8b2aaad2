package stages

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestNoToolsOffered: with tools_offered false, no target receives a tool
// call or a tool result, every real result's text is still there, and one
// pass reaches the fixed point.
func TestNoToolsOffered(t *testing.T) {
	noTools := stage.Settings{Request: settings.Request{ToolsOffered: new(false)}}
	forGenerated(t, 1700, sessiongen.Config{Damage: sessiongen.Issue16()}, func(t *testing.T, tg transcript.Target, input []byte) {
		first, env := runWith(t, tg, input, nil, noTools)
		out := first.MessagesJSON()
		second, _ := runWith(t, tg, out, first.AppendEntries, noTools)
		if got := second.MessagesJSON(); !bytes.Equal(out, got) {
			t.Fatalf("not idempotent\n%s", messageDiff(t, out, got))
		}
		checkServerTools(t, false, out)
		ms := parse(t, out)
		for i, m := range ms {
			if m.Role == "toolResult" || m.Role == "tool" {
				t.Fatalf("message %d is a tool result (report %v)", i, env.Report.Stages)
			}
			for _, b := range blocksOf(m) {
				if isCall(b) || b.Type == "tool_use" || b.Type == "toolResult" {
					t.Fatalf("message %d holds a %s block", i, b.Type)
				}
			}
		}
		// What the chain kept with tools offered, it keeps as text without.
		withTools, _ := run(t, tg, input, nil)
		for _, sm := range markerRE.FindAllString(string(withTools.MessagesJSON()), -1) {
			if !bytes.Contains(out, []byte(sm)) {
				t.Fatalf("result %q kept with tools is lost without them", sm)
			}
		}
	})
}

// checkServerTools asserts the server-tool facts on a chain's output: where
// they are kept (Anthropic Messages with tools), each result block follows
// its srvtoolu_ server_tool_use in the same assistant turn, and each use has
// its result; elsewhere no server-tool block is left.
func checkServerTools(t *testing.T, kept bool, out []byte) {
	t.Helper()
	for i, m := range parse(t, out) {
		open := map[string]bool{}
		for _, raw := range m.Blocks {
			var b struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			}
			_ = json.Unmarshal(raw, &b)
			server := b.Type == "server_tool_use" || strings.HasSuffix(b.Type, "_tool_result") && b.Type != "tool_result"
			switch {
			case !server:
			case !kept || m.Role != "assistant":
				t.Fatalf("message %d (%s) holds a %s block", i, m.Role, b.Type)
			case b.Type == "server_tool_use":
				if !strings.HasPrefix(b.ID, "srvtoolu_") {
					t.Fatalf("message %d: server_tool_use id %q", i, b.ID)
				}
				open[b.ID] = true
			default:
				if !open[b.ToolUseID] {
					t.Fatalf("message %d: %s for %q without its server_tool_use before it", i, b.Type, b.ToolUseID)
				}
				delete(open, b.ToolUseID)
			}
		}
		if len(open) > 0 {
			t.Fatalf("message %d: server_tool_use without a result: %v", i, open)
		}
	}
}

package stages

import (
	"bytes"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
)

// TestNoToolsOffered: with tools_offered false, no target receives a tool
// call or a tool result, every real result's text is still there, and one
// pass reaches the fixed point.
func TestNoToolsOffered(t *testing.T) {
	noTools := stage.Settings{NoToolsOffered: true}
	forGenerated(t, 1700, sessiongen.Issue16(), func(t *testing.T, tg policy.Target, input []byte) {
		first, env := runWith(t, tg, input, nil, noTools)
		out := first.MessagesJSON()
		second, _ := runWith(t, tg, out, first.AppendEntries, noTools)
		if got := second.MessagesJSON(); !bytes.Equal(out, got) {
			t.Fatalf("not idempotent\n%s", messageDiff(t, out, got))
		}
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

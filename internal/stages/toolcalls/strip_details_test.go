package toolcalls

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
)

// TestStripDetails runs spec §5 V45 and the §3.10 edge cases.
func TestStripDetails(t *testing.T) {
	cases := []idCase{
		{name: "V45 strip details",
			in:   `[{"role":"toolResult","toolCallId":"c1","details":{"exitCode":0},"content":[{"type":"text","text":"ok"}]}]`,
			want: `[{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"ok"}]}]`},
		{name: "synthetic marker removed, other roles untouched",
			in:   `[{"role":"user","content":"u","details":{"k":1}},null,{"role":"toolResult","toolCallId":"c1","isError":true,"details":{"openclawSyntheticMissingToolResult":true,"reason":"missing_tool_result"},"content":"x"}]`,
			want: `[{"role":"user","content":"u","details":{"k":1}},null,{"role":"toolResult","toolCallId":"c1","isError":true,"content":"x"}]`},
		{name: "no details: unchanged",
			in: `[{"role":"toolResult","toolCallId":"c1","content":"ok"},{"role":"assistant","content":[]}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, StripDetails()) })
	}
	res := stagetest.Case{Target: anthropic}.Apply(t, cases[1].in, StripDetails())
	if got := res.Report.Stages.Get(detailsStage, "removed"); got != 1 {
		t.Errorf("report removed = %d, want 1", got)
	}
}

// FuzzStripDetails checks the stage properties.
func FuzzStripDetails(f *testing.F) {
	f.Add(`[{"role":"toolResult","toolCallId":"c1","details":{"exitCode":0},"content":"ok"}]`)
	f.Add(`[null,{"role":"toolResult","details":null}]`)
	f.Fuzz(func(t *testing.T, in string) {
		stagetest.Case{Target: anthropic}.CheckProperties(t, []byte(in), StripDetails())
	})
}

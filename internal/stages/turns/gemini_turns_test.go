package turns

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
)

func TestGeminiTurns(t *testing.T) {
	google := stagetest.Case{Target: googleTarget}
	cases := []ruleCase{
		{
			name:   "V31 consecutive assistants merged",
			c:      google,
			in:     `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input":1},"model":"m1"},{"role":"assistant","content":[{"type":"text","text":"b"}],"usage":{"input":2},"stopReason":"stop","model":"m2"}]`,
			want:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"usage":{"input":2},"model":"m1","stopReason":"stop"}]`,
			report: map[string]int{"merged": 1},
		},
		{
			name: "run of three across a role-less entry; errorMessage from the later; string becomes a text block",
			c:    google,
			in:   `[{"role":"assistant","content":"x","errorMessage":"e1"},null,{"role":"assistant","content":[{"type":"text","text":"y"}],"errorMessage":"e2"},{"role":"assistant","content":"  "},{"role":"user","content":"q"},{"role":"assistant","content":[]}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}],"errorMessage":"e2"},null,{"role":"user","content":"q"},{"role":"assistant","content":[]}]`,
		},
		{
			name: "an empty later turn overwrites nothing; the timestamp travels with the usage",
			c:    google,
			in:   `[{"role":"assistant","content":[{"type":"thinking","thinking":"t"}],"stopReason":"stop","usage":{"input":1},"timestamp":1},{"role":"assistant","content":[],"stopReason":"length","usage":{"input":2},"timestamp":2},{"role":"assistant","content":[{"type":"text","text":"b"}],"stopReason":"stop","usage":{"input":3}}]`,
			want: `[{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"b"}],"stopReason":"stop","usage":{"input":3}}]`,
		},
		{
			name: "policy off (Anthropic): unchanged",
			in:   `[{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]}]`,
		},
	}
	runCases(t, cases, GeminiTurns())
}

func FuzzGeminiTurns(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input":1}},{"role":"assistant","content":[{"type":"text","text":"b"}],"stopReason":"stop"}]`,
		`[{"role":"assistant","content":"x"},null,{"role":"assistant","content":7}]`,
	}, GeminiTurns())
}

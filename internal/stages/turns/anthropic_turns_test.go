package turns

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

func TestAnthropicTurns(t *testing.T) {
	tc1 := `{"type":"toolCall","id":"c1","name":"read","arguments":{}}`
	think := `{"type":"thinking","thinking":"t","thinkingSignature":"Eq"}`
	res := func(id, name string) string {
		return `{"role":"toolResult","toolCallId":"` + id + `","toolName":"` + name + `","content":[{"type":"text","text":"ok"}]}`
	}
	cases := []ruleCase{
		{
			name:   "V32 consecutive users merged, later timestamp",
			in:     `[{"role":"user","content":[{"type":"text","text":"a"}],"timestamp":1},{"role":"user","content":[{"type":"text","text":"b"}],"timestamp":2},{"role":"assistant","content":[{"type":"text","text":"c"}]}]`,
			want:   `[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"timestamp":2},{"role":"assistant","content":[{"type":"text","text":"c"}]}]`,
			report: map[string]int{"merged": 1},
		},
		{
			name: "user merge: later fields win, earlier timestamp when the later has none, strings kept as text",
			in:   `[{"role":"user","content":"a","timestamp":1,"provenance":{"kind":"external_user"}},{"role":"user","content":"b","x":1},{"role":"user","content":" "}]`,
			want: `[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"timestamp":1}]`,
		},
		{
			name: "V33 dangling call removed",
			in:   `[{"role":"assistant","content":[{"type":"text","text":"x"},` + tc1 + `]},{"role":"user","content":"next"}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"x"}]},{"role":"user","content":"next"}]`,
		},
		{
			name: "V33 with thinking: whole content replaced",
			in:   `[{"role":"assistant","content":[` + think + `,` + tc1 + `]},{"role":"user","content":"next"}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}]},{"role":"user","content":"next"}]`,
		},
		{
			name: "V33 with stopReason aborted: []",
			in:   `[{"role":"assistant","content":[` + think + `,` + tc1 + `],"stopReason":"aborted"},{"role":"user","content":"next"}]`,
			want: `[{"role":"assistant","content":[],"stopReason":"aborted"},{"role":"user","content":"next"}]`,
		},
		{
			name: "only call removed without thinking: [tool calls omitted]; error turn: []",
			in:   `[{"role":"assistant","content":[` + tc1 + `]},{"role":"user","content":"a"},{"role":"assistant","content":[` + tc1 + `],"stopReason":"error"},{"role":"user","content":"b"}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}]},{"role":"user","content":"a"},{"role":"assistant","content":[],"stopReason":"error"},{"role":"user","content":"b"}]`,
		},
		{
			name: "answered calls kept; padded result id; result block in user content answers a call without thinking",
			in:   `[{"role":"assistant","content":[` + tc1 + `,{"type":"toolCall","id":"c2","name":"exec","arguments":{}}]},` + res(" c1 ", "read") + `,{"role":"user","content":[{"type":"toolResult","toolUseId":"c2","content":"x"}]}]`,
			want: `[{"role":"assistant","content":[` + tc1 + `,{"type":"toolCall","id":"c2","name":"exec","arguments":{}}]},` + res(" c1 ", "read") + `,{"role":"user","content":[{"type":"toolResult","toolUseId":"c2","content":"x"}]}]`,
		},
		{
			name: "with thinking a result block does not count, and a wrong name fails; the omitted calls' results go",
			in:   `[{"role":"assistant","content":[` + think + `,` + tc1 + `]},{"role":"user","content":[{"type":"toolResult","toolUseId":"c1","content":"x"}]},{"role":"assistant","content":[` + think + `,` + tc1 + `]},` + res("c1", "write") + `,{"role":"assistant","content":[` + think + `,` + tc1 + `]},` + res("c1", "") + `]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}]},{"role":"user","content":[]},{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}]},{"role":"assistant","content":[` + think + `,` + tc1 + `]},` + res("c1", "") + `]`,
		},
		{
			name: "omitted calls take their real results with them, other messages stay",
			in:   `[{"role":"assistant","content":[` + think + `,` + tc1 + `,{"type":"toolCall","id":"c2","name":"exec","arguments":{}}]},` + res("c1", "read") + `,` + res("c2", "read") + `,{"role":"user","content":"next"}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}]},{"role":"user","content":"next"}]`,
		},
		{
			name: "a result after the next assistant does not answer",
			in:   `[{"role":"assistant","content":[{"type":"text","text":"x"},` + tc1 + `]},{"role":"assistant","content":[{"type":"text","text":"y"}]},` + res("c1", "read") + `]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"x"}]},{"role":"assistant","content":[{"type":"text","text":"y"}]},` + res("c1", "read") + `]`,
		},
		{
			name: "policy off (Google): unchanged",
			c:    stagetest.Case{Target: googleTarget},
			in:   `[{"role":"user","content":"a"},{"role":"user","content":"b"}]`,
			want: `[{"role":"user","content":"a"},{"role":"user","content":"b"}]`,
		},
	}
	runCases(t, cases, AnthropicTurns())
}

func FuzzAnthropicTurns(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"user","content":[{"type":"text","text":"a"}],"timestamp":1},{"role":"user","content":"b"},{"role":"assistant","content":[{"type":"text","text":"c"}]}]`,
		`[{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"stopReason":"aborted"},{"role":"user","content":"next"}]`,
		`[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read"}]},{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[]}]`,
	}, AnthropicTurns())
}

// TestSpanResultsIndexed checks a span's answers against a plain map of the
// results, both when it is searched in order (short) and when it is
// indexed (longer than spanIndexMin).
func TestSpanResultsIndexed(t *testing.T) {
	for _, n := range []int{3, spanIndexMin + 8} {
		var parts []string
		names := map[string][]string{} // the reference: id -> tool names
		for i := range n {
			id, name, member := fmt.Sprintf("id%d", i%5), "", ""
			if i%3 != 0 {
				name = fmt.Sprintf("t%d", i%4)
				member = `,"toolName":" ` + name + ` "`
			}
			names[id] = append(names[id], name)
			parts = append(parts, fmt.Sprintf(`{"role":"toolResult","toolCallId":"%s"%s,"content":[{"type":"toolResult","toolUseId":"b%d"}]}`, id, member, i))
		}
		parts = append(parts, `{"role":"assistant","content":[]}`, `{"role":"toolResult","toolCallId":"after"}`)
		tr, err := transcript.FromMessages([]byte("["+strings.Join(parts, ",")+"]"), anthropicTarget)
		if err != nil {
			t.Fatal(err)
		}
		var s spanResults
		collectSpan(tr.Messages, &s)
		if indexed := s.byID != nil; indexed != (n > spanIndexMin) {
			t.Fatalf("%d results: indexed %v", n, indexed)
		}
		for i := range 7 {
			id := fmt.Sprintf("id%d", i)
			if got, want := s.answered(id), len(names[id]) > 0; got != want {
				t.Errorf("%d results: answered(%s) = %v, want %v", n, id, got, want)
			}
			for _, tool := range []string{"t1", "t2", "t9"} {
				want := false
				for _, have := range names[id] {
					want = want || have == "" || have == tool
				}
				if got := s.hasName(id, tool); got != want {
					t.Errorf("%d results: hasName(%s, %s) = %v, want %v", n, id, tool, got, want)
				}
			}
		}
		for i := range n + 2 {
			if block := fmt.Sprintf("b%d", i); s.answered(block) != (i < n) {
				t.Errorf("%d results: answered(%s) = %v", n, block, !(i < n))
			}
		}
		if s.answered("after") {
			t.Errorf("%d results: a result after the next assistant counts", n)
		}
	}
}

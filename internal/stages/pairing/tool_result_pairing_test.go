package pairing

import (
	"context"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// D is the synthetic text when the settings give none.
const D = DefaultMissingToolResultText

type pairingCase struct {
	name     string
	in, want string // want "" means: unchanged
	settings stage.Settings
	report   map[string]int // the stage's report entry; nil means none
}

func runPairingCases(t *testing.T, cases []pairingCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = tc.in
			}
			res := stagetest.Case{Target: stagetest.Anthropic, Settings: tc.settings}.Apply(t, tc.in, ToolResultPairing())
			stagetest.Equal(t, res.JSON, want)
			checkReport(t, res.Report, ToolResultPairingName, tc.report)
		})
	}
}

func checkReport(t *testing.T, r *stage.Report, name string, want map[string]int) {
	t.Helper()
	got := r.Stages.Of(name)
	if len(got) != len(want) {
		t.Errorf("report[%s] = %v, want %v", name, got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("report[%s] = %v, want %v", name, got, want)
			return
		}
	}
}

func TestToolResultPairingVectors(t *testing.T) {
	a1 := asst("toolUse", 1000, tc("c1", "read"), tc("c2", "exec"))
	legacySyn := `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."}],"isError":true}`
	runPairingCases(t, []pairingCase{
		{
			name:   "V1 move displaced result and insert missing",
			in:     arr(a1, user("hi"), res("c1", "read", "ok")),
			want:   arr(a1, res("c1", "read", "ok"), syn("c2", "exec", D, "1000"), user("hi")),
			report: map[string]int{"synthetic": 1, "moved": 1},
		},
		{
			name:   "V2 duplicate in span",
			in:     arr(asst("toolUse", 1000, tc("c1", "read")), res("c1", "read", "first"), res("c1", "read", "second")),
			want:   arr(asst("toolUse", 1000, tc("c1", "read")), res("c1", "read", "first")),
			report: map[string]int{"duplicate": 1},
		},
		{
			name:   "V3 real result replaces synthetic",
			in:     arr(asst("toolUse", 1000, tc("c1", "read")), syn("c1", "read", D, "1000"), res("c1", "read", "real")),
			want:   arr(asst("toolUse", 1000, tc("c1", "read")), res("c1", "read", "real")),
			report: map[string]int{"synthetic_replaced": 1},
		},
		{
			name:   "V3 real result replaces legacy-text synthetic",
			in:     arr(asst("toolUse", 1000, tc("c1", "read")), legacySyn, res("c1", "read", "real")),
			want:   arr(asst("toolUse", 1000, tc("c1", "read")), res("c1", "read", "real")),
			report: map[string]int{"synthetic_replaced": 1},
		},
		{
			name:   "V4 orphan before any call dropped",
			in:     arr(res("zz", "read", "x"), user("hi")),
			want:   arr(user("hi")),
			report: map[string]int{"orphan": 1},
		},
		{
			name: "V5 cross-frame displaced, single owner",
			in: arr(asst("toolUse", 1000, tc("x", "read")), user("q"), asst("toolUse", 2000, tc("y", "read")),
				res("x", "read", "X"), res("y", "read", "Y")),
			want: arr(asst("toolUse", 1000, tc("x", "read")), res("x", "read", "X"), user("q"),
				asst("toolUse", 2000, tc("y", "read")), res("y", "read", "Y")),
			report: map[string]int{"moved": 1},
		},
		{
			name: "V6 ambiguous displaced result dropped",
			in: arr(asst("toolUse", 1000, tc("c1", "read")), asst("toolUse", 2000, tc("c1", "read")), asst("toolUse", 3000, tc("c9", "read")),
				res("c1", "read", "?"), res("c9", "read", "ok")),
			want: arr(asst("toolUse", 1000, tc("c1", "read")), syn("c1", "read", D, "1000"),
				asst("toolUse", 2000, tc("c1", "read")), syn("c1", "read", D, "2000"),
				asst("toolUse", 3000, tc("c9", "read")), res("c9", "read", "ok")),
			report: map[string]int{"synthetic": 2, "orphan": 1},
		},
		{
			name: "V7 repeated provider id on a later turn stays with its own occurrence",
			in: arr(asst("toolUse", 1000, tc("t1", "read")), res("t1", "read", "one"), user("again"),
				asst("toolUse", 2000, tc("t1", "read")), res("t1", "read", "two")),
		},
		{
			name: "V8 whitespace-padded result id stays paired",
			in:   arr(asst("toolUse", 1000, tc("c1", "read")), `{"role":"toolResult","toolCallId":"  c1 ","toolName":"read","content":[{"type":"text","text":"ok"}]}`),
		},
		{
			name:   "V9 failed assistant under drop policy",
			in:     arr(user("go"), asst("error", 1000, tc("c1", "exec")), res("c1", "exec", "partial"), user("retry")),
			want:   arr(user("go"), user("retry")),
			report: map[string]int{"failed_turn": 1, "failed_turn_result": 1},
		},
		{
			name:   "V11 blank result name repaired",
			in:     arr(asst("toolUse", 1000, tc("c1", "read")), `{"role":"toolResult","toolCallId":"c1","toolName":"  ","content":[{"type":"text","text":"ok"}]}`),
			want:   arr(asst("toolUse", 1000, tc("c1", "read")), `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]}`),
			report: map[string]int{"renamed": 1},
		},
		{
			name:   "V12 legacy id-less result adopts the single call",
			in:     arr(asst("toolUse", 1000, tc("c1", "read")), `{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"ok"}]}`),
			want:   arr(asst("toolUse", 1000, tc("c1", "read")), `{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"ok"}],"toolCallId":"c1","isError":true}`),
			report: map[string]int{"adopted": 1},
		},
	})
}

// TestToolResultPairingV9Preserve runs V9 under the function's own default
// policy, which sanitizeSessionHistory never passes.
func TestToolResultPairingV9Preserve(t *testing.T) {
	in := arr(user("go"), asst("error", 1000, tc("c1", "exec")), res("c1", "exec", "partial"), user("retry"))
	got, c := runRepairJSON(t, in, repairOptions{text: D, failed: preserveFailed})
	stagetest.Equal(t, got, in)
	if c != (repairCounts{}) {
		t.Errorf("counts = %+v, want none", c)
	}
	// A failed turn missing a result gets no synthetic under preserve either.
	in = arr(user("go"), asst("aborted", 1000, tc("c1", "exec"), tc("c2", "exec")), res("c2", "exec", "partial"), user("retry"))
	got, _ = runRepairJSON(t, in, repairOptions{text: D, failed: preserveFailed})
	stagetest.Equal(t, got, in)
}

func TestToolResultPairingEdges(t *testing.T) {
	a := asst("toolUse", 1000, tc("c1", "read"))
	nine := make([]string, 9)
	nineSyn := make([]string, 9)
	for i := range nine {
		nine[i] = tc("x", "read")
		nineSyn[i] = syn("x", "read", D, "1000")
	}
	bigCalls := []string{tc("d", "read"), tc("d", "read")}
	var bigResultsIn, bigResultsOut []string
	for i := 9; i >= 1; i-- {
		id := "k" + string(rune('0'+i))
		bigResultsIn = append(bigResultsIn, res(id, "read", id))
	}
	for i := 1; i <= 9; i++ {
		id := "k" + string(rune('0'+i))
		bigCalls = append(bigCalls, tc(id, "read"))
		bigResultsOut = append(bigResultsOut, res(id, "read", id))
	}
	bigA := asst("toolUse", 1000, bigCalls...)
	runPairingCases(t, []pairingCase{
		{
			name:   "aborted assistant gets no synthetic and is removed",
			in:     arr(user("go"), asst("aborted", 1000, tc("c1", "exec")), user("next")),
			want:   arr(user("go"), user("next")),
			report: map[string]int{"failed_turn": 1},
		},
		{
			name:     "configured text and the job clock",
			in:       arr(user("go"), a, user("next")),
			want:     arr(user("go"), a, syn("c1", "read", "no result", "5000"), user("next")),
			settings: stage.Settings{MissingToolResultText: "no result", Request: settings.Request{NowMs: new(int64(5000))}},
			report:   map[string]int{"synthetic": 1},
		},
		{
			name:     "blank configured text falls back to the default",
			in:       arr(user("go"), a),
			want:     arr(user("go"), a, syn("c1", "read", D, "1000")),
			settings: stage.Settings{MissingToolResultText: "  "},
			report:   map[string]int{"synthetic": 1},
		},
		{
			name:   "no clock and no assistant timestamp: the synthetic has none",
			in:     arr(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":" ","arguments":{}}]}`),
			want:   arr(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":" ","arguments":{}}]}`, syn("c1", "unknown", D, "")),
			report: map[string]int{"synthetic": 1},
		},
		{
			name:   "id-less result with a different name is not adopted",
			in:     arr(a, `{"role":"toolResult","toolName":"write","content":[{"type":"text","text":"ok"}]}`),
			want:   arr(a, syn("c1", "read", D, "1000")),
			report: map[string]int{"synthetic": 1, "orphan": 1},
		},
		{
			name:   "id-less result in a frame with two calls is dropped",
			in:     arr(a1c1c2(), `{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"ok"}]}`, res("c2", "exec", "ok")),
			want:   arr(a1c1c2(), syn("c1", "read", D, "1000"), res("c2", "exec", "ok")),
			report: map[string]int{"synthetic": 1, "orphan": 1},
		},
		{
			name:   "result id from a legacy alias",
			in:     arr(a, user("u"), `{"role":"toolResult","tool_use_id":"c1","toolName":"read","content":[]}`),
			want:   arr(a, `{"role":"toolResult","tool_use_id":"c1","toolName":"read","content":[]}`, user("u")),
			report: map[string]int{"moved": 1},
		},
		{
			name: "late real result replaces a synthetic in an earlier frame",
			in: arr(a, syn("c1", "read", D, "1000"), user("u"), asst("toolUse", 2000, tc("c2", "exec")),
				res("c2", "exec", "two"), res("c1", "read", "real")),
			want: arr(a, res("c1", "read", "real"), user("u"), asst("toolUse", 2000, tc("c2", "exec")),
				res("c2", "exec", "two")),
			report: map[string]int{"moved": 1, "synthetic_replaced": 1},
		},
		{
			name: "a displaced synthetic never replaces a real result",
			in: arr(a, res("c1", "read", "real"), user("u"), asst("toolUse", 2000, tc("c2", "exec")),
				res("c2", "exec", "two"), syn("c1", "read", D, "1000")),
			want: arr(a, res("c1", "read", "real"), user("u"), asst("toolUse", 2000, tc("c2", "exec")),
				res("c2", "exec", "two")),
			report: map[string]int{"orphan": 1},
		},
		{
			name:   "a synthetic duplicate never replaces a real result in its frame",
			in:     arr(a, res("c1", "read", "real"), syn("c1", "read", D, "1000")),
			want:   arr(a, res("c1", "read", "real")),
			report: map[string]int{"duplicate": 1},
		},
		{
			name:   "null inside a frame is dropped, before any frame it stays",
			in:     arr(`null`, user("u"), a, `null`, res("c1", "read", "ok")),
			want:   arr(`null`, user("u"), a, res("c1", "read", "ok")),
			report: map[string]int{"null_dropped": 1},
		},
		{
			name:   "result name normalisation: trimmed, unknown, or left absent",
			in:     arr(asst("toolUse", 1000, tc("c1", "read"), tc("c2", ""), tc("c3", "")), `{"role":"toolResult","toolCallId":"c1","toolName":" read ","content":[]}`, `{"role":"toolResult","toolCallId":"c2","toolName":"","content":[]}`, `{"role":"toolResult","toolCallId":"c3","content":[]}`),
			want:   arr(asst("toolUse", 1000, tc("c1", "read"), tc("c2", ""), tc("c3", "")), `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[]}`, `{"role":"toolResult","toolCallId":"c2","toolName":"unknown","content":[]}`, `{"role":"toolResult","toolCallId":"c3","content":[]}`),
			report: map[string]int{"renamed": 2},
		},
		{
			name:   "a name already trimmed is left as its bytes spell it (an escape)",
			in:     arr(a, `{"role":"toolResult","toolCallId":"c1","toolName":"re\u0061d","content":[]}`),
			want:   arr(a, `{"role":"toolResult","toolCallId":"c1","toolName":"re\u0061d","content":[]}`),
			report: map[string]int{},
		},
		{
			name:   "missing result name is taken from the call",
			in:     arr(a, `{"role":"toolResult","toolCallId":"c1","content":[]}`),
			want:   arr(a, `{"role":"toolResult","toolCallId":"c1","content":[],"toolName":"read"}`),
			report: map[string]int{"renamed": 1},
		},
		{
			name:   "large frame: FIFO per id, reordering, duplicate",
			in:     arr(append(append([]string{bigA}, bigResultsIn...), res("d", "read", "one"), res("d", "read", "two"), res("d", "read", "three"))...),
			want:   arr(append([]string{bigA, res("d", "read", "one"), res("d", "read", "two")}, bigResultsOut...)...),
			report: map[string]int{"moved": 10, "duplicate": 1},
		},
		{
			name:   "large frame: a real duplicate replaces the earliest synthetic",
			in:     arr(append(append([]string{asst("toolUse", 1000, nine...)}, nineSyn...), res("x", "read", "real"))...),
			want:   arr(append([]string{asst("toolUse", 1000, nine...), res("x", "read", "real")}, nineSyn[1:]...)...),
			report: map[string]int{"synthetic_replaced": 1, "moved": 1},
		},
		{
			name: "white-space call id: answered by an id-less result, stable",
			in:   arr(asst("toolUse", 1000, tc("  ", "read"), tc("c2", "exec")), syn("  ", "read", D, "1000"), res("c2", "exec", "ok")),
		},
	})
}

func a1c1c2() string { return asst("toolUse", 1000, tc("c1", "read"), tc("c2", "exec")) }

// TestToolResultPairingDroppedCall is the provider fact "a call dropped
// earlier never gets a synthetic result": its result is an orphan.
func TestToolResultPairingDroppedCall(t *testing.T) {
	runPairingCases(t, []pairingCase{
		{
			name:   "result of a removed call, no frame before it",
			in:     arr(user("go"), asst("stop", 1000, `{"type":"text","text":"x"}`), res("c1", "read", "ok"), user("next")),
			want:   arr(user("go"), asst("stop", 1000, `{"type":"text","text":"x"}`), user("next")),
			report: map[string]int{"orphan": 1},
		},
		{
			name: "result of a removed call inside another frame",
			in: arr(user("go"), asst("toolUse", 1000, tc("c0", "read")), res("c0", "read", "zero"), user("u"),
				asst("stop", 2000, `{"type":"text","text":"x"}`), res("c1", "read", "ok")),
			want: arr(user("go"), asst("toolUse", 1000, tc("c0", "read")), res("c0", "read", "zero"), user("u"),
				asst("stop", 2000, `{"type":"text","text":"x"}`)),
			report: map[string]int{"orphan": 1},
		},
	})
}

func TestToolResultPairingGuards(t *testing.T) {
	in := arr(res("zz", "read", "x"), user("hi"))
	res := stagetest.Case{Target: openAIResponses}.Apply(t, in, ToolResultPairing())
	stagetest.Equal(t, res.JSON, in)
	if res.Report.Stages.Len() != 0 {
		t.Errorf("report = %v, want none for a Responses target", res.Report.Stages)
	}
	// A policy with the repair off (no table row has one today).
	tr, err := transcript.FromMessages([]byte(in), transcript.Target(stagetest.Anthropic))
	if err != nil {
		t.Fatal(err)
	}
	env := &stage.Env{Policy: policy.Policy{API: "anthropic-messages"}, Report: stage.NewReport()}
	if err := ToolResultPairing().Apply(context.Background(), tr, env); err != nil {
		t.Fatal(err)
	}
	stagetest.Equal(t, tr.MessagesJSON(), in)
}

func TestToolResultPairingKeepsUntouchedPointers(t *testing.T) {
	in := arr(user("go"), asst("toolUse", 1000, tc("c1", "read")), user("next"))
	r := stagetest.Case{Target: stagetest.Anthropic}.Apply(t, in, ToolResultPairing())
	for i, m := range r.Transcript.Messages {
		if i == 2 {
			if !m.Changed() {
				t.Errorf("message 2 should be the new synthetic")
			}
			continue
		}
		if m.Changed() {
			t.Errorf("message %d was re-encoded", i)
		}
	}
	if !strings.Contains(string(r.JSON), "openclawSyntheticMissingToolResult") {
		t.Errorf("no synthetic in %s", r.JSON)
	}
}

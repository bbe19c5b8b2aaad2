package pairing

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// responsesStep10 is spec §4 step 10 for the Responses family.
func responsesStep10() []stage.Stage {
	return []stage.Stage{ResponsesPairing(), OrphanReasoning(), ResponsesIDs(), FunctionCallDowngrade()}
}

// responsesChain is step 10 and then step 16.
func responsesChain() []stage.Stage { return append(responsesStep10(), ResponsesInvariant()) }

// rsThinking is a thinking block signed as OpenAI reasoning item rs_1.
const rsThinking = `{"type":"thinking","thinking":"","thinkingSignature":"{\"id\":\"rs_1\",\"type\":\"reasoning\"}"}`

type responsesCase struct {
	name         string
	in, want     string // want "" means: unchanged
	modelChanged bool
	stages       []stage.Stage
	report       map[string]map[string]int // nil: nothing reported
}

func runResponsesCases(t *testing.T, cases []responsesCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = tc.in
			}
			res := stagetest.Case{Target: openAIResponses, ModelChanged: tc.modelChanged}.Apply(t, tc.in, tc.stages...)
			stagetest.Equal(t, res.JSON, want)
			if res.Report.Stages.Len() != len(tc.report) {
				t.Errorf("report = %v, want %v", res.Report.Stages, tc.report)
			}
			for name, w := range tc.report {
				checkReport(t, res.Report, name, w)
			}
		})
	}
}

func TestResponsesVectors(t *testing.T) {
	runResponsesCases(t, []responsesCase{
		{
			name:   "V10 Responses synthetic text, then the fc_ downgrade rewrites call and result together",
			in:     arr(user("x"), asst("toolUse", 1000, tc("call_1|fc_1", "read")), user("y")),
			want:   arr(user("x"), asst("toolUse", 1000, tc("call_1", "read")), syn("call_1", "read", "aborted", "1000"), user("y")),
			stages: responsesChain(),
			report: map[string]map[string]int{
				ResponsesPairingName:      {"synthetic": 1},
				FunctionCallDowngradeName: {"calls": 1, "results": 1},
			},
		},
		{
			name:   "V25 OpenAI no-touch: reasoning before the call keeps the fc_ pair",
			in:     arr(user("x"), asst("toolUse", 1000, rsThinking, tc("call_abc|fc_123", "read")), res("call_abc|fc_123", "read", "ok")),
			stages: responsesChain(),
		},
		{
			name:   "V26 reasoning with nothing after it: the message is removed",
			in:     arr(user("x"), asst("stop", 1000, rsThinking)),
			want:   arr(user("x")),
			stages: []stage.Stage{OrphanReasoning()},
			report: map[string]map[string]int{OrphanReasoningName: {"blocks_dropped": 1, "messages_dropped": 1}},
		},
		{
			name:   "V26 reasoning followed by text is kept",
			in:     arr(user("x"), asst("stop", 1000, rsThinking, `{"type":"text","text":"hi"}`)),
			stages: []stage.Stage{OrphanReasoning()},
		},
		{
			name:   "V27 fc_ downgrade without reasoning",
			in:     arr(asst("toolUse", 1000, tc("call_1|fc_1", "read")), res("call_1|fc_1", "read", "ok")),
			want:   arr(asst("toolUse", 1000, tc("call_1", "read")), res("call_1", "read", "ok")),
			stages: []stage.Stage{FunctionCallDowngrade()},
			report: map[string]map[string]int{FunctionCallDowngradeName: {"calls": 1, "results": 1}},
		},
	})
}

func TestOrphanReasoning(t *testing.T) {
	text := `{"type":"text","text":"hi"}`
	anthropicThinking := `{"type":"thinking","thinking":"hm","thinkingSignature":"EqQBCkYIBxgCKkA"}`
	objectSig := `{"type":"thinking","thinking":"","thinkingSignature":{"id":"rs_2","type":"reasoning.encrypted"}}`
	redacted := `{"type":"redacted_thinking","data":"abc"}`
	runResponsesCases(t, []responsesCase{
		{
			name:   "only the trailing reasoning goes",
			in:     arr(asst("stop", 1000, rsThinking, text, objectSig)),
			want:   arr(asst("stop", 1000, rsThinking, text)),
			stages: []stage.Stage{OrphanReasoning()},
			report: map[string]map[string]int{OrphanReasoningName: {"blocks_dropped": 1}},
		},
		{
			name:   "reasoning followed only by thinking is orphaned",
			in:     arr(user("u"), asst("stop", 1000, rsThinking, redacted)),
			want:   arr(user("u"), asst("stop", 1000, redacted)),
			stages: []stage.Stage{OrphanReasoning()},
			report: map[string]map[string]int{OrphanReasoningName: {"blocks_dropped": 1}},
		},
		{
			name:   "non-OpenAI thinking is untouched, even last",
			in:     arr(asst("stop", 1000, anthropicThinking), asst("stop", 2000, `{"type":"thinking","thinking":"x","thinkingSignature":"{\"id\":\"msg_1\",\"type\":\"reasoning\"}"}`)),
			stages: []stage.Stage{OrphanReasoning()},
		},
		{
			name:         "model changed: every replayable reasoning block goes",
			in:           arr(user("u"), asst("stop", 1000, rsThinking, text, anthropicThinking), asst("stop", 2000, objectSig)),
			want:         arr(user("u"), asst("stop", 1000, text, anthropicThinking)),
			modelChanged: true,
			stages:       []stage.Stage{OrphanReasoning()},
			report:       map[string]map[string]int{OrphanReasoningName: {"blocks_dropped": 2, "messages_dropped": 1}},
		},
	})
	// Not a Responses target: nothing happens.
	in := arr(asst("stop", 1000, rsThinking))
	res := stagetest.Case{Target: stagetest.Anthropic}.Apply(t, in, OrphanReasoning())
	stagetest.Equal(t, res.JSON, in)
}

func TestFunctionCallDowngrade(t *testing.T) {
	runResponsesCases(t, []responsesCase{
		{
			name:   "reasoning after the call does not protect it",
			in:     arr(asst("toolUse", 1000, tc("call_1|fc_1", "read"), rsThinking, tc("call_2|fc_2", "read")), res("call_1|fc_1", "read", "a"), res("call_2|fc_2", "read", "b")),
			want:   arr(asst("toolUse", 1000, tc("call_1", "read"), rsThinking, tc("call_2|fc_2", "read")), res("call_1", "read", "a"), res("call_2|fc_2", "read", "b")),
			stages: []stage.Stage{FunctionCallDowngrade()},
			report: map[string]map[string]int{FunctionCallDowngradeName: {"calls": 1, "results": 1}},
		},
		{
			name:   "a non-result message ends the run",
			in:     arr(asst("toolUse", 1000, tc("call_1|fc_1", "read")), user("u"), res("call_1|fc_1", "read", "a")),
			want:   arr(asst("toolUse", 1000, tc("call_1", "read")), user("u"), res("call_1|fc_1", "read", "a")),
			stages: []stage.Stage{FunctionCallDowngrade()},
			report: map[string]map[string]int{FunctionCallDowngradeName: {"calls": 1}},
		},
		{
			name:   "every id member naming the call is rewritten, padded ones too",
			in:     arr(asst("toolUse", 1000, tc("call_1|fc_1", "read")), `{"role":"toolResult","toolCallId":" call_1|fc_1 ","toolUseId":"call_1|fc_1","call_id":"call_1|fc_1","toolName":"read","content":[]}`),
			want:   arr(asst("toolUse", 1000, tc("call_1", "read")), `{"role":"toolResult","toolCallId":"call_1","toolUseId":"call_1","call_id":"call_1","toolName":"read","content":[]}`),
			stages: []stage.Stage{FunctionCallDowngrade()},
			report: map[string]map[string]int{FunctionCallDowngradeName: {"calls": 1, "results": 1}},
		},
		{
			name:   "not an fc_ pair: left alone",
			in:     arr(asst("toolUse", 1000, tc("call_1|item_1", "read"), tc("|fc_2", "read"), tc("call_3", "read")), res("call_1|item_1", "read", "a"), res("|fc_2", "read", "b"), res("call_3", "read", "c")),
			stages: []stage.Stage{FunctionCallDowngrade()},
		},
	})
}

func TestResponsesIDs(t *testing.T) {
	long := "call_" + strings.Repeat("x", 70)
	runResponsesCases(t, []responsesCase{
		{
			name:   "overlong call id gets a hashed one, result with it",
			in:     arr(asst("toolUse", 1000, tc(long, "read")), res(long, "read", "a")),
			want:   arr(asst("toolUse", 1000, tc("call_4bb9a8ba3690c1e352e0d67e", "read")), res("call_4bb9a8ba3690c1e352e0d67e", "read", "a")),
			stages: []stage.Stage{ResponsesIDs()},
			report: map[string]map[string]int{ResponsesIDsName: {"calls": 1, "results": 1}},
		},
		{
			name: "turn-local ids repeated across turns become distinct",
			in: arr(user("u"), asst("toolUse", 1000, tc("terminal:0", "terminal")), res("terminal:0", "terminal", "a"), user("v"),
				asst("toolUse", 2000, tc("terminal:0", "terminal")), res("terminal:0", "terminal", "b")),
			want: arr(user("u"), asst("toolUse", 1000, tc("call_385ff56197fc01a80bd3c0db", "terminal")), res("call_385ff56197fc01a80bd3c0db", "terminal", "a"), user("v"),
				asst("toolUse", 2000, tc("call_8dca1078959787ab88bf3343", "terminal")), res("call_8dca1078959787ab88bf3343", "terminal", "b")),
			stages: []stage.Stage{ResponsesIDs()},
			report: map[string]map[string]int{ResponsesIDsName: {"calls": 2, "results": 2}},
		},
		{
			name: "a valid id repeated: the first keeps it",
			in: arr(asst("toolUse", 1000, tc("call_1", "read")), res("call_1", "read", "a"), user("v"),
				asst("toolUse", 2000, tc("call_1", "read")), res("call_1", "read", "b")),
			want: arr(asst("toolUse", 1000, tc("call_1", "read")), res("call_1", "read", "a"), user("v"),
				asst("toolUse", 2000, tc("call_87f02c722f72ca3720c0e7fd", "read")), res("call_87f02c722f72ca3720c0e7fd", "read", "b")),
			stages: []stage.Stage{ResponsesIDs()},
			report: map[string]map[string]int{ResponsesIDsName: {"calls": 1, "results": 1}},
		},
		{
			name:   "native Kimi id with an fc_ item: call part hashed, item kept",
			in:     arr(asst("toolUse", 1000, tc("functions.gateway:0|fc_tmp_kegospxl46", "gateway")), res("functions.gateway:0|fc_tmp_kegospxl46", "gateway", "a")),
			want:   arr(asst("toolUse", 1000, tc("call_01368a3996b6f6474f724f19|fc_tmp_kegospxl46", "gateway")), res("call_01368a3996b6f6474f724f19|fc_tmp_kegospxl46", "gateway", "a")),
			stages: []stage.Stage{ResponsesIDs()},
			report: map[string]map[string]int{ResponsesIDsName: {"calls": 1, "results": 1}},
		},
		{
			name: "bad, overlong and repeated item ids are dropped; padding is trimmed",
			in: arr(asst("toolUse", 1000, tc("call_1|item_9", "read"), tc("call_2|fc_"+strings.Repeat("y", 62), "read"), tc(" call_3|fc_1", "read"), tc("call_4|fc_1", "read")),
				res("call_1|item_9", "read", "a"), res("call_2|fc_"+strings.Repeat("y", 62), "read", "b"), res(" call_3|fc_1", "read", "c"), res("call_4|fc_1", "read", "d")),
			want: arr(asst("toolUse", 1000, tc("call_1", "read"), tc("call_2", "read"), tc("call_3|fc_1", "read"), tc("call_4", "read")),
				res("call_1", "read", "a"), res("call_2", "read", "b"), res("call_3|fc_1", "read", "c"), res("call_4", "read", "d")),
			stages: []stage.Stage{ResponsesIDs()},
			report: map[string]map[string]int{ResponsesIDsName: {"calls": 4, "results": 4, "items_dropped": 3}},
		},
		{
			name:   "valid distinct ids: untouched",
			in:     arr(asst("toolUse", 1000, tc("call_abc|fc_123", "read"), tc("toolu_01AbC", "read")), res("call_abc|fc_123", "read", "a"), res("toolu_01AbC", "read", "b")),
			stages: []stage.Stage{ResponsesIDs()},
		},
	})
}

func TestResponsesReplayChecker(t *testing.T) {
	big := make([]string, 10)
	bigRes := make([]string, 10)
	for i := range big {
		id := "k" + string(rune('a'+i))
		big[i] = tc(id, "read")
		bigRes[len(big)-1-i] = res(id, "read", "ok")
	}
	cases := []struct {
		name, in string
		want     string // "" means valid
	}{
		{"valid, any order within the turn", arr(user("u"), asst("toolUse", 1, tc("c1", "read"), tc("c2", "read")), res("c2", "read", "b"), res("c1", "read", "a"), user("v")), ""},
		{"large turn in reverse order", arr(append([]string{asst("toolUse", 1, big...)}, bigRes...)...), ""},
		{"dangling before the next message", arr(asst("toolUse", 1, tc("c1", "read")), user("u")),
			"invalid_replay_transcript: OpenAI Responses replay contains dangling_tool_call toolCallId=c1 at message index 0"},
		{"dangling at the end", arr(user("u"), asst("toolUse", 1, tc("c1", "read"), tc("c2", "read")), res("c1", "read", "a")),
			"invalid_replay_transcript: OpenAI Responses replay contains dangling_tool_call toolCallId=c2 at message index 1"},
		{"large turn with one missing", arr(append([]string{user("u"), asst("toolUse", 1, big...)}, bigRes[1:]...)...),
			"invalid_replay_transcript: OpenAI Responses replay contains dangling_tool_call toolCallId=kj at message index 1"},
		{"orphan", arr(user("u"), res("zz", "read", "x")),
			"invalid_replay_transcript: OpenAI Responses replay contains orphan_tool_result toolCallId=zz at message index 1"},
		{"duplicate answer", arr(asst("toolUse", 1, tc("c1", "read")), res("c1", "read", "a"), res("c1", "read", "b")),
			"invalid_replay_transcript: OpenAI Responses replay contains orphan_tool_result toolCallId=c1 at message index 2"},
		{"orphan without an id", arr(asst("toolUse", 1, tc("c1", "read")), res("c1", "read", "a"), `{"role":"toolResult","content":[]}`),
			"invalid_replay_transcript: OpenAI Responses replay contains orphan_tool_result at message index 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := transcript.FromMessages([]byte(tc.in), transcript.Target(openAIResponses))
			if err != nil {
				t.Fatal(err)
			}
			err = checkResponsesReplay(tr.Messages)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected violation: %v", err)
				}
				return
			}
			var re *ReplayError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a *ReplayError", err)
			}
			if err.Error() != tc.want {
				t.Errorf("got  %q\nwant %q", err.Error(), tc.want)
			}
		})
	}
}

// TestResponsesInvariantRepairsFirst: the stage repairs before it checks,
// so the hand-made bad inputs above pass through it without an error.
func TestResponsesInvariantRepairsFirst(t *testing.T) {
	in := arr(user("u"), res("zz", "read", "x"), asst("toolUse", 1000, tc("c1", "read"), tc("c2", "read")), res("c1", "read", "a"), user("v"))
	want := arr(user("u"), asst("toolUse", 1000, tc("c1", "read"), tc("c2", "read")), res("c1", "read", "a"), syn("c2", "read", "aborted", "1000"), user("v"))
	res := stagetest.Case{Target: openAIResponses}.Apply(t, in, ResponsesInvariant())
	stagetest.Equal(t, res.JSON, want)
	checkReport(t, res.Report, ResponsesInvariantName, map[string]int{"synthetic": 1, "orphan": 1})
}

// TestResponsesGuards: outside the Responses family every Responses rule
// leaves the transcript alone.
func TestResponsesGuards(t *testing.T) {
	in := arr(user("x"), asst("toolUse", 1000, tc("functions.read:0|fc_1", "read")), user("y"), asst("stop", 2000, rsThinking))
	for _, s := range responsesChain() {
		res := stagetest.Case{Target: stagetest.Anthropic, ModelChanged: true}.Apply(t, in, s)
		stagetest.Equal(t, res.JSON, in)
		if res.Report.Stages.Len() != 0 {
			t.Errorf("%s reported %v on an Anthropic target", s.Name, res.Report.Stages)
		}
	}
}

// TestCancelledContext: every rule gives up on a cancelled context before
// touching the transcript.
func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := arr(user("x"), asst("toolUse", 1000, tc("c1", "read")))
	all := append([]stage.Stage{ToolResultPairing()}, responsesChain()...)
	for _, s := range all {
		target := openAIResponses
		if s.Name == ToolResultPairingName {
			target = stagetest.Anthropic
		}
		tr, err := transcript.FromMessages([]byte(in), transcript.Target(target))
		if err != nil {
			t.Fatal(err)
		}
		env := &stage.Env{Policy: policy.Resolve(target), Report: stage.NewReport()}
		if err := s.Apply(ctx, tr, env); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", s.Name, err)
		}
		stagetest.Equal(t, tr.MessagesJSON(), in)
	}
}

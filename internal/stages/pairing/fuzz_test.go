package pairing

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
)

// fuzzSeeds are the inputs of the spec vectors of this package, some edge
// cases and a few damaged histories.
func fuzzSeeds() []string {
	a := asst("toolUse", 1000, tc("c1", "read"))
	seeds := []string{
		arr(asst("toolUse", 1000, tc("c1", "read"), tc("c2", "exec")), user("hi"), res("c1", "read", "ok")),
		arr(a, res("c1", "read", "first"), res("c1", "read", "second")),
		arr(a, syn("c1", "read", D, "1000"), res("c1", "read", "real")),
		arr(res("zz", "read", "x"), user("hi")),
		arr(asst("toolUse", 1000, tc("x", "read")), user("q"), asst("toolUse", 2000, tc("y", "read")), res("x", "read", "X"), res("y", "read", "Y")),
		arr(a, asst("toolUse", 2000, tc("c1", "read")), asst("toolUse", 3000, tc("c9", "read")), res("c1", "read", "?"), res("c9", "read", "ok")),
		arr(a, res("t1", "read", "one"), user("again"), asst("toolUse", 2000, tc("t1", "read")), res("t1", "read", "two")),
		arr(a, `{"role":"toolResult","toolCallId":"  c1 ","toolName":"read","content":[{"type":"text","text":"ok"}]}`),
		arr(user("go"), asst("error", 1000, tc("c1", "exec")), res("c1", "exec", "partial"), user("retry")),
		arr(a, `{"role":"toolResult","toolCallId":"c1","toolName":"  ","content":[]}`),
		arr(a, `{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"ok"}]}`),
		arr(user("x"), asst("toolUse", 1000, tc("call_1|fc_1", "read")), user("y")),
		arr(user("x"), asst("toolUse", 1000, rsThinking, tc("call_abc|fc_123", "read")), res("call_abc|fc_123", "read", "ok")),
		arr(user("x"), asst("stop", 1000, rsThinking)),
		arr(asst("toolUse", 1000, tc("call_1|fc_1", "read")), res("call_1|fc_1", "read", "ok")),
		arr(asst("toolUse", 1000, tc("  ", "read"), tc("c2", "exec")), `null`, `"text"`, res("c2", "exec", "ok")),
		arr(asst("toolUse", 1000, tc("functions.gateway:0|fc_tmp_1", "gateway")), res("functions.gateway:0|fc_tmp_1", "gateway", "a"),
			asst("toolUse", 2000, tc("functions.gateway:0|fc_tmp_1", "gateway")), res("functions.gateway:0|fc_tmp_1", "gateway", "b")),
		arr(asst("toolUse", 1000, tc("call_"+strings.Repeat("x", 70)+"|fc_"+strings.Repeat("y", 70), "read"))),
		`[1, {"role":"assistant","content":"text"}, {"role":"toolResult"}, {"role":"assistant","content":[{"type":"toolCall","id":5}]}]`,
	}
	for seed := uint64(1); seed <= 4; seed++ {
		seeds = append(seeds, damagedHistory(seed, 12))
	}
	return seeds
}

func fuzzStages(f *testing.F, c stagetest.Case, stages ...stage.Stage) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c.CheckProperties(t, data, stages...)
	})
}

func FuzzToolResultPairing(f *testing.F) {
	fuzzStages(f, stagetest.Case{Target: stagetest.Anthropic}, ToolResultPairing())
}

func FuzzResponsesPairing(f *testing.F) {
	fuzzStages(f, stagetest.Case{Target: openAIResponses}, ResponsesPairing())
}

func FuzzOrphanReasoning(f *testing.F) {
	fuzzStages(f, stagetest.Case{Target: openAIResponses, ModelChanged: true}, OrphanReasoning())
}

func FuzzResponsesIDs(f *testing.F) {
	fuzzStages(f, stagetest.Case{Target: openAIResponses}, ResponsesPairing(), ResponsesIDs())
}

func FuzzFunctionCallDowngrade(f *testing.F) {
	fuzzStages(f, stagetest.Case{Target: openAIResponses}, FunctionCallDowngrade())
}

// FuzzResponsesInvariant runs the whole Responses sequence; CheckProperties
// fails on any stage error, so it also checks that the repair always
// satisfies the invariant.
func FuzzResponsesInvariant(f *testing.F) {
	fuzzStages(f, stagetest.Case{Target: openAIResponses}, responsesChain()...)
}

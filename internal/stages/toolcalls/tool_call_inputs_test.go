package toolcalls

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
)

const (
	thinkSig = `{"type":"thinking","thinking":"t","thinkingSignature":"EqQBCkYIBxgCKkA"}`
	readC1   = `{"type":"toolCall","id":"c1","name":"read","arguments":{}}`
)

// TestToolCallInputsVectors runs spec §5 V13–V17 and the edge cases §3.5 pins down.
func TestToolCallInputsVectors(t *testing.T) {
	name64, name65 := strings.Repeat("x", 64), strings.Repeat("x", 65)
	cases := []idCase{
		{name: "V13 missing input and arguments",
			in:   `[{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"toolCall","id":"c1","name":"read"}]}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"x"}]}]`},
		{name: "V13 only block: message removed",
			in:   `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":null}]}]`,
			want: `[{"role":"user","content":"hi"}]`},
		{name: "V14 invalid names",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bad name","arguments":{}},{"type":"toolCall","id":"c2","name":"` + name65 + `","arguments":{}},{"type":"toolCall","id":"c3","name":"","arguments":{}},{"type":"toolCall","id":"c4","name":7,"arguments":{}},{"type":"toolCall","id":"c5","name":"` + name64 + `","arguments":{}},{"type":"toolCall","id":"c6","name":" read ","arguments":{"p":1},"thoughtSignature":"c2ln"}]}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"c5","name":"` + name64 + `","arguments":{}},{"type":"toolCall","id":"c6","name":"read","arguments":{"p":1},"thoughtSignature":"c2ln"}]}]`},
		{name: "V15 allow-list", allowed: []string{"read"},
			in:   `[{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"Write","arguments":{}}]},{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"READ","arguments":{}}]}]`,
			want: `[{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"READ","arguments":{}}]}]`},
		{name: "V15 an empty allow-list is no list", allowed: []string{" "},
			in: `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"Write","arguments":{}}]}]`},
		{name: "V16 immutable signed turn with bad sibling",
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `,{"type":"toolCall","id":"c2","name":"bad name","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]}]`,
			want: `[{"role":"user","content":"go"},{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]}]`},
		{name: "V17 finalised Responses partialJson", target: responses,
			in:   `[{"role":"assistant","stopReason":"toolUse","content":[{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{"p":1},"partialJson":"{\"p\":1}"}]}]`,
			want: `[{"role":"assistant","stopReason":"toolUse","content":[{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{"p":1}}]}]`},
		{name: "V17 same block after an error is dropped", target: responses,
			in:   `[{"role":"user","content":"u"},{"role":"assistant","stopReason":"error","content":[{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{"p":1},"partialJson":"{\"p\":1}"}]}]`,
			want: `[{"role":"user","content":"u"}]`},
		{name: "partialJson blank with empty arguments is finalised", target: responses,
			in:   `[{"role":"assistant","stopReason":"toolUse","content":[{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{},"partialJson":"  "}]}]`,
			want: `[{"role":"assistant","stopReason":"toolUse","content":[{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{}}]}]`},
		// issue 20: complete arguments keep the call whatever its id and
		// input; only a partialJson that is not the whole object drops it
		{name: "partialJson not an object is dropped; the id and input do not matter", target: responses,
			in:   `[{"role":"assistant","stopReason":"toolUse","content":[{"type":"text","text":"t"},{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{},"partialJson":"[1]"},{"type":"toolCall","id":"call_2|","name":"read","arguments":{},"partialJson":"{}"},{"type":"toolCall","id":"call_3|fc_3","name":"read","arguments":{},"input":{},"partialJson":"{}"}]}]`,
			want: `[{"role":"assistant","stopReason":"toolUse","content":[{"type":"text","text":"t"},{"type":"toolCall","id":"call_2|","name":"read","arguments":{}},{"type":"toolCall","id":"call_3|fc_3","name":"read","arguments":{},"input":{}}]}]`},
		{name: "newer id members and snake-case aliases",
			in:   `[{"role":"assistant","content":[{"type":"tool_use","call_id":"c9","name":"read","input":{}},{"type":"function_call","id":" ","name":"read","input":{}},{"type":"tool_call","id":"c8","name":"read"},{"type":"functionCall","toolUseId":"c7","name":"read","arguments":{}}]}]`,
			want: `[{"role":"assistant","content":[{"type":"tool_use","call_id":"c9","name":"read","input":{}},{"type":"functionCall","toolUseId":"c7","name":"read","arguments":{}}]}]`},
		{name: "null and non-object entries removed",
			in:   `[null,{"role":"user","content":"u"},"stray",42,{"role":"assistant","content":[{"type":"text","text":"ok"}]}]`,
			want: `[{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"text","text":"ok"}]}]`},
		{name: "text blocks preserved and untouched messages kept",
			in: `[{"role":"assistant","content":[{"type":"text","text":"x"},` + readC1 + `]},{"role":"assistant","content":[]},{"role":"assistant","content":"plain"}]`},
		{name: "thinking turns stay mutable without immutable replay", target: google,
			in:   `[{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `,{"type":"toolCall","id":"c2","name":"bad name","arguments":{}}]}]`,
			want: `[{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]}]`},
		{name: "signed turn that is replay-safe stays byte-identical",
			in: `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"toolResult","toolCallId":"c1","content":"ok"}]`},
		{name: "signed turn reusing an id within the turn is dropped",
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `,` + readC1 + `]}]`,
			want: `[{"role":"user","content":"go"}]`},
		{name: "signed turn reusing an id of an earlier signed turn is dropped",
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"toolResult","toolCallId":"c1","content":"a"},{"role":"user","content":"more"},{"role":"assistant","content":[` + thinkSig + `,{"type":"toolCall","id":" c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":"b"}]`,
			want: `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"toolResult","toolCallId":"c1","content":"a"},{"role":"user","content":"more"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`},
		{name: "signed turn whose name needs trimming is dropped",
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,{"type":"toolCall","id":"c1","name":" read","arguments":{}}]}]`,
			want: `[{"role":"user","content":"go"}]`},
		{name: "signed turn with a cut partialJson is dropped",
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,{"type":"toolCall","id":"c1","name":"read","arguments":{},"partialJson":"{\"p\":"}]}]`,
			want: `[{"role":"user","content":"go"}]`},
		{name: "signed turn with complete arguments and a leftover partialJson stays byte-identical",
			in: `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,{"type":"toolCall","id":"c1","name":"read","arguments":{},"partialJson":"{}"}]}]`},
		{name: "signed turn with a disallowed name is dropped", allowed: []string{"exec"},
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"toolResult","toolCallId":"c1","content":"ok"}]`,
			want: `[{"role":"user","content":"go"},{"role":"toolResult","toolCallId":"c1","content":"ok"}]`},
		{name: "signed sessions_spawn with attachments needs every result in the span",
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,{"type":"toolCall","id":"s1","name":"sessions_spawn","arguments":{"attachments":[{"name":"a","content":"x"}]}},` + readC1 + `]},{"role":"toolResult","toolCallId":"s1","content":"ok"}]`,
			want: `[{"role":"user","content":"go"},{"role":"toolResult","toolCallId":"s1","content":"ok"}]`},
		{name: "signed sessions_spawn with every result is kept",
			in: `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,{"type":"toolCall","id":"s1","name":"sessions_spawn","arguments":{"attachments":[{"name":"a","content":"x"}]}},` + readC1 + `]},{"role":"toolResult","toolCallId":"s1","content":"ok"},{"role":"toolResult","toolCallId":"c1","content":"ok"}]`},
		{name: "signed turn with displaced results and an id seen before is dropped",
			in:   `[{"role":"assistant","content":[` + readC1 + `]},{"role":"toolResult","toolCallId":"c1","content":"a"},{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`,
			want: `[{"role":"assistant","content":[` + readC1 + `]},{"role":"toolResult","toolCallId":"c1","content":"a"},{"role":"user","content":"go"},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`},
		{name: "signed turn whose span grows when the next assistant is removed",
			in:   `[{"role":"assistant","content":[` + readC1 + `]},{"role":"toolResult","toolCallId":"c1","content":"a"},{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"user","content":"interrupt"},{"role":"assistant","content":[{"type":"toolCall","id":"c5","name":"read"}]},{"role":"toolResult","toolCallId":"c1","content":"b"}]`,
			want: `[{"role":"assistant","content":[` + readC1 + `]},{"role":"toolResult","toolCallId":"c1","content":"a"},{"role":"user","content":"go"},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`},
		{name: "signed turn with displaced results and the id of a call dropped before is dropped",
			in:   `[{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"toolCall","id":"c1","name":"bad name","arguments":{}}]},{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"x"}]},{"role":"user","content":"go"},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`},
		{name: "signed turn with displaced results and the id of an assistant removed before is dropped",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bad name","arguments":{}}]},{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`,
			want: `[{"role":"user","content":"go"},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`},
		{name: "two displaced signed turns: the second sees the first's id",
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"a"},{"role":"assistant","content":[{"type":"text","text":"y"},{"type":"toolCall","id":"c2","name":"bad name","arguments":{}}]},{"role":"user","content":"again"},{"role":"assistant","content":[` + thinkSig + `,{"type":"toolCall","id":"c2","name":"read","arguments":{}}]},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c2","content":"b"}]`,
			want: `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"a"},{"role":"assistant","content":[{"type":"text","text":"y"}]},{"role":"user","content":"again"},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c2","content":"b"}]`},
		{name: "signed turn with displaced results and the id of the assistant just before is dropped",
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[` + readC1 + `]},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`,
			want: `[{"role":"user","content":"go"},{"role":"assistant","content":[` + readC1 + `]},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`},
		{name: "signed turn with displaced results and fresh ids is kept",
			in: `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `]},{"role":"user","content":"interrupt"},{"role":"toolResult","toolCallId":"c1","content":"b"}]`},
		{name: "Bedrock signed turn without id in id member is dropped", target: bedrock,
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,{"type":"toolCall","call_id":"c1","name":"read","arguments":{}}]}]`,
			want: `[{"role":"user","content":"go"}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, ToolCallInputs()) })
	}
}

// TestToolCallInputsDropsNeverSynthesise runs V16 through the rule and then
// checks, the way pairing repair sees a history, that the dropped call's id
// is no longer a call and that no tool result was created for it.
func TestToolCallInputsDropsNeverSynthesise(t *testing.T) {
	in := `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `,{"type":"toolCall","id":"c2","name":"bad name","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]},{"role":"assistant","content":[{"type":"toolCall","id":"c3","name":"read"},{"type":"text","text":"kept"}]},{"role":"user","content":"next"}]`
	res := stagetest.Case{Target: anthropic}.Apply(t, in, ToolCallInputs())
	var msgs []map[string]any
	if err := json.Unmarshal(res.JSON, &msgs); err != nil {
		t.Fatal(err)
	}
	results := 0
	for _, m := range msgs {
		if m["role"] == "toolResult" {
			results++
		}
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			blk, _ := b.(map[string]any)
			switch blk["id"] {
			case "c1", "c2", "c3":
				t.Errorf("dropped call %v still appears as a call: %s", blk["id"], res.JSON)
			}
		}
	}
	if results != 1 {
		t.Errorf("tool results = %d, want the 1 real result and no synthetic one: %s", results, res.JSON)
	}
	want := map[string]int{"dropped_calls": 3, "messages_removed": 1, "signed_turns_dropped": 1}
	for k, n := range want {
		if got := res.Report.Stages.Get(inputsStage, k); got != n {
			t.Errorf("report %s = %d, want %d", k, got, n)
		}
	}
}

// FuzzToolCallInputs checks the stage properties with and without
// immutable signed replay.
func FuzzToolCallInputs(f *testing.F) {
	for _, seed := range inputSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		stagetest.Case{Target: anthropic, Settings: fuzzSettings}.CheckProperties(t, []byte(in), ToolCallInputs())
		stagetest.Case{Target: google, Settings: fuzzSettings}.CheckProperties(t, []byte(in), ToolCallInputs())
		stagetest.Case{Target: responses}.CheckProperties(t, []byte(in), ToolCallInputs())
	})
}

// TestDroppedCallResultStaysOrphan runs input validation and then the id
// rule: the result of the dropped signed turn pairs with nothing (pairing
// repair will remove it), and the later call that reuses its raw id keeps
// both its id and its own result.
func TestDroppedCallResultStaysOrphan(t *testing.T) {
	in := `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkSig + `,` + readC1 + `,{"type":"toolCall","id":"c2","name":"bad name","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":"a"},{"role":"user","content":"again"},{"role":"assistant","content":[` + readC1 + `]},{"role":"toolResult","toolCallId":"c1","content":"b"}]`
	c := stagetest.Case{Target: anthropic}
	res := c.Apply(t, in, ToolCallInputs(), ToolCallIDs())
	want := `[{"role":"user","content":"go"},{"role":"toolResult","toolCallId":"c1toolresult1","content":"a"},{"role":"user","content":"again"},{"role":"assistant","content":[` + readC1 + `]},{"role":"toolResult","toolCallId":"c1","content":"b"}]`
	stagetest.Equal(t, res.JSON, want)
	var msgs []any
	if err := json.Unmarshal(res.JSON, &msgs); err != nil {
		t.Fatal(err)
	}
	paired := refPairing(msgs)
	if _, ok := paired[1]; ok {
		t.Errorf("the dropped call's result is paired: %v", paired)
	}
	if got, ok := paired[4]; !ok || got != (callRef{3, 0}) {
		t.Errorf("the later result is paired with %v (%v), want message 3 block 0", got, ok)
	}
	c.CheckProperties(t, []byte(in), ToolCallInputs(), ToolCallIDs())
}

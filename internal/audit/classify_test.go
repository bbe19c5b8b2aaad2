package audit

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Real id shapes: Anthropic toolu_01 + 22 base62; pi-ai's stored OpenAI
// Responses call_<24>|fc_<hex>; Mistral 9 alphanumerics.
const (
	idA     = "toolu_01A09q90qw90lq917835lq9a"
	idB     = "toolu_01BkR7mZ3xT9wQpL2nVcY5hD"
	idC     = "toolu_01Xy4pQ8rN2mK7vB3cJ6tW9s"
	idResp  = "call_U8JZpDE0iGXlD6gNCFbaEPFj|fc_0d1371c17149d439536b3216fdaeeb975729fae923d5a4fd12"
	idMistA = "D681PevKs"
	idMistB = "q2Rz7TbWx"
)

func inventoryOfJSON(t *testing.T, msgs string) inventory {
	t.Helper()
	tr, err := transcript.FromMessages([]byte(msgs), transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"})
	if err != nil {
		t.Fatal(err)
	}
	return inventoryOf(tr.Messages)
}

func assistant(stop string, blocks ...string) string {
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"` + stop + `"}`
}

func toolCall(id, name, args string) string {
	return `{"type":"toolCall","id":"` + id + `","name":"` + name + `","arguments":` + args + `}`
}

func toolResult(id, name, text string) string {
	return `{"role":"toolResult","toolCallId":"` + id + `","toolName":"` + name + `","content":[{"type":"text","text":"` + text + `"}],"isError":false}`
}

func TestCallClass(t *testing.T) {
	anthropic := rules{names: contract.Of(contract.AnthropicMessages).ToolNames}
	gemini := rules{names: contract.Of(contract.Gemini).ToolNames}
	allowed := rules{names: anthropic.names, allowed: []string{"exec"}}
	asText := rules{names: anthropic.names, toolsAsText: true}
	tests := []struct {
		name  string
		r     rules
		stop  string
		block string
		want  string
	}{
		{"well formed", anthropic, "toolUse", toolCall(idA, "read", `{"path":"README.md"}`), ""},
		{"empty arguments object", anthropic, "toolUse", toolCall(idA, "read", `{}`), ""},
		{"legacy toolUse with input", anthropic, "toolUse", `{"type":"toolUse","id":"` + idA + `","name":"read","input":{"path":"a"}}`, ""},
		{"finished Responses call with its partialJson", anthropic, "toolUse",
			`{"type":"toolCall","id":"` + idResp + `","name":"read","arguments":{"path":"a"},"partialJson":"{\"path\":\"a\"}"}`, ""},
		{"blank partialJson beside empty arguments", anthropic, "toolUse", `{"type":"toolCall","id":"` + idA + `","name":"read","arguments":{},"partialJson":""}`, ""},
		{"padded name is trimmed", anthropic, "toolUse", toolCall(idA, " read ", `{}`), ""},
		{"stop in a length turn", anthropic, "length", toolCall(idA, "read", `{}`), ""},
		{"errored turn", anthropic, "error", toolCall(idA, "read", `{"path":"a"}`), ClassErroredTurn},
		{"aborted turn", anthropic, "aborted", toolCall(idA, "read", `{"path":"a"}`), ClassErroredTurn},
		{"no id", anthropic, "toolUse", `{"type":"toolCall","name":"read","arguments":{}}`, ClassMissingID},
		{"empty id", anthropic, "toolUse", toolCall("", "read", `{}`), ClassMissingID},
		{"no arguments", anthropic, "toolUse", `{"type":"toolCall","id":"` + idA + `","name":"read"}`, ClassIncomplete},
		{"null arguments", anthropic, "toolUse", toolCall(idA, "read", `null`), ClassIncomplete},
		{"arguments a string", anthropic, "toolUse", toolCall(idA, "read", `"{\"path\":\"a\"}"`), ClassIncomplete},
		{"arguments an array", anthropic, "toolUse", toolCall(idA, "read", `[1]`), ClassIncomplete},
		{"only a partialJson", anthropic, "toolUse", `{"type":"toolCall","id":"` + idA + `","name":"read","partialJson":"{\"path\":\"a\"}"}`, ClassIncomplete},
		{"partialJson cut mid-stream", anthropic, "toolUse", `{"type":"toolCall","id":"` + idA + `","name":"read","arguments":{},"partialJson":"{\"path\":\"sr"}`, ClassIncomplete},
		{"name with a space", anthropic, "toolUse", toolCall(idA, "bad name!", `{}`), ClassInvalidName},
		{"blank name", anthropic, "toolUse", toolCall(idA, "  ", `{}`), ClassInvalidName},
		{"name of 65 characters", anthropic, "toolUse", toolCall(idA, strings.Repeat("r", 65), `{}`), ClassInvalidName},
		{"name the target refuses", anthropic, "toolUse", toolCall(idA, "functions.read", `{}`), ClassInvalidName},
		{"same name on a target that takes it", gemini, "toolUse", toolCall(idA, "functions.read", `{}`), ""},
		{"name Gemini refuses", gemini, "toolUse", toolCall(idA, "1read", `{}`), ClassInvalidName},
		{"name not allowed", allowed, "toolUse", toolCall(idA, "read", `{}`), ClassInvalidName},
		{"allowed name in another case", allowed, "toolUse", toolCall(idA, "Exec", `{}`), ""},
		{"tools as text", asText, "toolUse", toolCall(idA, "read", `{}`), ClassToolsAsText},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv := inventoryOfJSON(t, `[{"role":"user","content":"go"},`+assistant(tc.stop, tc.block)+`]`)
			if len(inv.calls) != 1 {
				t.Fatalf("%d calls", len(inv.calls))
			}
			got, why := tc.r.callClass(inv.calls[0])
			if got != tc.want {
				t.Fatalf("class %q (%s), want %q", got, why, tc.want)
			}
		})
	}
}

// TestAnsweredCutPartialIsComplete: a finished call whose leftover
// partialJson does not parse is complete when a result answers it, as the
// chain judges it (issue 29); without one it is incomplete_arguments.
func TestAnsweredCutPartialIsComplete(t *testing.T) {
	r := rules{names: contract.Of(contract.OpenAIResponses).ToolNames}
	call := `{"type":"toolCall","id":"` + idResp + `","name":"read","arguments":{"path":"/"},"partialJson":"{\"path\":\"/\""}`
	for _, tc := range []struct {
		name, after, want string
	}{
		{"answered", "," + toolResult(idResp, "read", "EISDIR: illegal operation on a directory, read"), ""},
		{"unanswered", "", ClassIncomplete},
	} {
		inv := inventoryOfJSON(t, `[{"role":"user","content":"What is in /?"},`+assistant("toolUse", call)+tc.after+`]`)
		if got, why := r.callClass(inv.calls[0]); got != tc.want {
			t.Errorf("%s: class %q (%s), want %q", tc.name, got, why, tc.want)
		}
	}
}

// TestAllowedWireForms: a call that carries the wire form of an allowed
// name the target refuses (an already sanitized history) is well formed,
// as the chain keeps it (issue 29); an unrelated name is not.
func TestAllowedWireForms(t *testing.T) {
	names := contract.Of(contract.AnthropicMessages).ToolNames
	r := rules{names: names, allowed: allowedNames([]string{"browser.open", " exec "}, names)}
	for name, want := range map[string]string{"browser_open": "", "exec": "", "browser-open": ClassInvalidName} {
		inv := inventoryOfJSON(t, `[{"role":"user","content":"go"},`+assistant("toolUse", toolCall(idA, name, `{}`))+`]`)
		if got, why := r.callClass(inv.calls[0]); got != want {
			t.Errorf("%s: class %q (%s), want %q", name, got, why, want)
		}
	}
}

func TestDuplicateIDInTurn(t *testing.T) {
	r := rules{names: contract.Of(contract.AnthropicMessages).ToolNames}
	inv := inventoryOfJSON(t, `[{"role":"user","content":"go"},`+
		assistant("toolUse", toolCall(idA, "read", `{"path":"a"}`), toolCall(idA, "read", `{"path":"b"}`))+`,`+
		assistant("toolUse", toolCall(idA, "read", `{"path":"c"}`))+`]`)
	var got []string
	for _, c := range inv.calls {
		class, _ := r.callClass(c)
		got = append(got, class)
	}
	// The reuse in a later turn (Gemini's read_0 ids) is well formed.
	if strings.Join(got, ",") != ","+ClassDuplicateID+"," {
		t.Fatalf("classes %q", got)
	}
}

// TestDrops runs the matching and the classifier over an input and an
// output the repair could have made (ids rewritten to Mistral's, as
// tool_call_ids would).
func TestDrops(t *testing.T) {
	r := rules{names: contract.Of(contract.Mistral).ToolNames}
	type want struct {
		kind, class string
		msg         int
	}
	tests := []struct {
		name    string
		in, out string
		want    []want
		added   int // results the output has and the input has not
	}{
		{
			name: "everything kept under new ids",
			in: `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idA, "read", `{"path":"a"}`), toolCall(idB, "exec", `{"cmd":"ls"}`)) + `,` +
				toolResult(idA, "read", "a") + `,` + toolResult(idB, "exec", "ls") + `]`,
			out: `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idMistA, "read", `{"path":"a"}`), toolCall(idMistB, "exec", `{"cmd":"ls"}`)) + `,` +
				toolResult(idMistA, "read", "a") + `,` + toolResult(idMistB, "exec", "ls") + `]`,
		},
		{
			name: "each class",
			in: `[{"role":"user","content":"go"},` +
				assistant("toolUse", toolCall(idA, "read", `{"path":"a"}`), toolCall(idB, "exec", `{"cmd":"ls"}`)) + `,` +
				toolResult(idA, "read", "a") + `,` + toolResult(idA, "read", "again") + `,` + toolResult(idC, "read", "ghost") + `,` + toolResult(idB, "exec", "ls") + `,` +
				assistant("error", toolCall(idC, "read", `{"path":"b"}`)) + `,` + toolResult(idC, "read", "b") + `,` +
				`{"role":"user","content":"next"}]`,
			out: `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idMistA, "read", `{"path":"a"}`)) + `,` + toolResult(idMistA, "read", "a") + `,` +
				`{"role":"user","content":"next"}]`,
			want: []want{
				{KindCall, ClassValidDropped, 1},
				{KindResult, ClassDuplicateResult, 3},
				{KindResult, ClassNoCall, 4},
				{KindResult, ClassValidDropped, 5},
				{KindCall, ClassErroredTurn, 6},
				{KindResult, ClassErroredTurn, 7},
			},
		},
		{
			name: "a kept call loses its only result",
			in:   `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idA, "read", `{"path":"a"}`)) + `,` + toolResult(idA, "read", "a") + `]`,
			out:  `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idMistA, "read", `{"path":"a"}`)) + `]`,
			want: []want{{KindResult, ClassValidDropped, 2}},
		},
		{
			// A result the repair wrote for a call without one is added, not matched.
			name: "a synthesised result",
			in:   `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idA, "read", `{"path":"a"}`)) + `]`,
			out: `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idMistA, "read", `{"path":"a"}`)) + `,` +
				toolResult(idMistA, "read", "missing tool result") + `]`,
			added: 1,
		},
		{
			// The same call retried after a failed turn: the drop is the failed one's.
			name: "an identical call in a failed turn",
			in: `[{"role":"user","content":"go"},` + assistant("error", toolCall(idA, "read", `{"path":"a"}`)) + `,` +
				assistant("toolUse", toolCall(idB, "read", `{"path":"a"}`)) + `,` + toolResult(idB, "read", "a") + `]`,
			out:  `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idMistA, "read", `{"path":"a"}`)) + `,` + toolResult(idMistA, "read", "a") + `]`,
			want: []want{{KindCall, ClassErroredTurn, 1}},
		},
		{
			// A rule that repairs the arguments keeps the call: it matches by name, in order.
			name: "arguments repaired",
			in: `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idA, "read", `{"path":"\ud800"}`), toolCall(idB, "read", `{"path":"b"}`)) + `,` +
				toolResult(idA, "read", "a") + `,` + toolResult(idB, "read", "b") + `]`,
			out: `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idMistA, "read", `{"path":"\ufffd"}`), toolCall(idMistB, "read", `{"path":"b"}`)) + `,` +
				toolResult(idMistA, "read", "a") + `,` + toolResult(idMistB, "read", "b") + `]`,
		},
		{
			// Ids kept: the same id wins over the order of identical calls.
			name: "identical calls with kept ids",
			in: `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idA, "read", `{"path":"a"}`)) + `,` + toolResult(idA, "read", "a") + `,` +
				assistant("toolUse", toolCall(idB, "read", `{"path":"a"}`)) + `,` + toolResult(idB, "read", "a2") + `]`,
			out:  `[{"role":"user","content":"go"},` + assistant("toolUse", toolCall(idB, "read", `{"path":"a"}`)) + `,` + toolResult(idB, "read", "a2") + `]`,
			want: []want{{KindCall, ClassValidDropped, 1}, {KindResult, ClassValidDropped, 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, out := inventoryOfJSON(t, tc.in), inventoryOfJSON(t, tc.out)
			v := classify(in, r)
			m := match(in, out, v)
			got := drops(in, m, v)
			if len(got) != len(tc.want) {
				t.Fatalf("drops %+v, want %+v", got, tc.want)
			}
			for i, w := range tc.want {
				if got[i].Kind != w.kind || got[i].Class != w.class || got[i].Message != w.msg {
					t.Errorf("drop %d: %+v, want %+v", i, got[i], w)
				}
			}
			if m.addedResults != tc.added || m.addedCalls != 0 {
				t.Errorf("added calls %d, results %d; want 0, %d", m.addedCalls, m.addedResults, tc.added)
			}
		})
	}
}

// TestSignedTurn: a signed turn with a malformed call goes whole only when
// the target verifies its signature; a foreign provider's thinking does not
// freeze the turn, so its well-formed calls must survive.
func TestSignedTurn(t *testing.T) {
	anthropic := rules{names: contract.Of(contract.AnthropicMessages).ToolNames, verifier: policy.SignerAnthropic}
	turn := func(provider, api string) string {
		return `{"role":"assistant","content":[{"type":"thinking","thinking":"plan","thinkingSignature":"EqQBCkYIBxgCKkDx3k0bX2x9m1pQvXyZr8c7t6s5r4q3p2o1n0m9"},` +
			toolCall(idA, "read", `{"path":"a"}`) + `,` + toolCall(idB, "bad name!", `{}`) + `],"provider":"` + provider + `","api":"` + api + `","model":"m","stopReason":"toolUse"}`
	}
	for _, tc := range []struct {
		name, provider, api, want string
	}{
		{"own provider", "anthropic", "anthropic-messages", ClassSignedTurn},
		{"own provider, spelled otherwise", " Anthropic ", "anthropic-messages", ClassSignedTurn},
		{"the same signatures on Bedrock", "amazon-bedrock", "bedrock-converse-stream", ClassSignedTurn},
		{"foreign provider", "openai", "openai-responses", ClassValidDropped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := inventoryOfJSON(t, `[{"role":"user","content":"go"},`+turn(tc.provider, tc.api)+`,`+toolResult(idA, "read", "a")+`,`+toolResult(idB, "bad name!", "b")+`]`)
			out := inventoryOfJSON(t, `[{"role":"user","content":"go"}]`)
			v := classify(in, anthropic)
			got := drops(in, match(in, out, v), v)
			want := []string{tc.want, ClassInvalidName, tc.want, ClassInvalidName}
			if len(got) != len(want) {
				t.Fatalf("drops %+v", got)
			}
			for i := range want {
				if got[i].Class != want[i] {
					t.Errorf("drop %d: %+v, want class %s", i, got[i], want[i])
				}
			}
		})
	}
}

// TestSignedTurnReusingAnID: a signed turn that reuses an earlier call's
// id goes whole on the provider that replays it unchanged.
func TestSignedTurnReusingAnID(t *testing.T) {
	anthropic := rules{names: contract.Of(contract.AnthropicMessages).ToolNames, verifier: policy.SignerAnthropic}
	signed := func(provider string, calls ...string) string {
		return `{"role":"assistant","content":[{"type":"thinking","thinking":"plan","thinkingSignature":"EqQBCkYIBxgCKkDx3k0bX2x9m1pQvXyZr8c7t6s5r4q3p2o1n0m9"},` +
			strings.Join(calls, ",") + `],"provider":"` + provider + `","api":"anthropic-messages","model":"m","stopReason":"toolUse"}`
	}
	for _, tc := range []struct{ provider, want string }{{"anthropic", ClassSignedTurn}, {"minimax", ClassValidDropped}} {
		t.Run(tc.provider, func(t *testing.T) {
			in := inventoryOfJSON(t, `[{"role":"user","content":"go"},`+signed(tc.provider, toolCall(idA, "read", `{"path":"a"}`))+`,`+toolResult(idA, "read", "a")+`,`+
				signed(tc.provider, toolCall(idB, "read", `{"path":"b"}`), toolCall(idA, "read", `{"path":"c"}`))+`,`+toolResult(idB, "read", "b")+`,`+toolResult(idA, "read", "c")+`]`)
			out := inventoryOfJSON(t, `[{"role":"user","content":"go"},`+signed(tc.provider, toolCall(idA, "read", `{"path":"a"}`))+`,`+toolResult(idA, "read", "a")+`]`)
			v := classify(in, anthropic)
			got := drops(in, match(in, out, v), v)
			if len(got) != 4 {
				t.Fatalf("drops %+v", got)
			}
			for _, d := range got {
				if d.Class != tc.want {
					t.Errorf("%+v, want class %s", d, tc.want)
				}
			}
		})
	}
}

package stages

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Reproducers of issue 20: real session shapes (pi-ai's stored ids, the
// partialJson it leaves on finished calls, reasoning of another provider)
// that the chain refused or lost.

// The ids of one faithful GPT-5 turn as pi-ai stores them: the Responses
// call_id and its function_call item id joined by "|" (83 bytes), and the
// reasoning item id inside the thinking signature.
const (
	piCallA = "call_5URYX45jqRO25g3uK5kbAAeg|fc_4afed66aaad2fc267163268998530877710984ae48d55c34db"
	piCallB = "call_oh6MdHmBll1fhY4saZPZuRUz|fc_e153ea0232a8291067050494d83c36767394c42ef0569c396b"
	piRsA   = "rs_5eef4566936ece29366969df3b75b940ac49425138d26eed15"
)

// piResponsesTurn is one assistant turn of a GPT-5 session as pi-ai writes
// it: reasoning (the item JSON in thinkingSignature), then two finished
// function calls that keep their partialJson, then their results.
func piResponsesTurn(provider, api, model string) string {
	sig := `{\"id\":\"` + piRsA + `\",\"type\":\"reasoning\",\"encrypted_content\":\"gAAAAABpKzX1c3VtbWFyeV9vZl90aGVfcmVhc29uaW5nX2l0ZW0=\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"**Listing the repository**\"}]}`
	return `{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":"**Listing the repository**","thinkingSignature":"` + sig + `"},` +
		`{"type":"toolCall","id":"` + piCallA + `","name":"bash","arguments":{"command":"ls -la"},"partialJson":"{\"command\":\"ls -la\"}"},` +
		`{"type":"toolCall","id":"` + piCallB + `","name":"read","arguments":{"path":"README.md"},"partialJson":"{\"path\":\"README.md\"}"}],` +
		`"api":"` + api + `","provider":"` + provider + `","model":"` + model + `",` +
		`"usage":{"input":5120,"output":310,"cacheRead":0,"cacheWrite":0,"totalTokens":5430,"cost":{"input":0.0064,"output":0.0031,"cacheRead":0,"cacheWrite":0,"total":0.0095}},` +
		`"stopReason":"toolUse","timestamp":1764620001000},` +
		`{"role":"toolResult","toolCallId":"` + piCallA + `","toolName":"bash","content":[{"type":"text","text":"total 8\nREADME.md"}],"isError":false,"timestamp":1764620002000},` +
		`{"role":"toolResult","toolCallId":"` + piCallB + `","toolName":"read","content":[{"type":"text","text":"# hygiene"}],"isError":false,"timestamp":1764620003000}`
}

// piResponsesSession is a whole GPT-5 history: a user turn, the reasoning
// and tool turn, and the model's final answer.
func piResponsesSession(provider, api, model string) string {
	return `[{"role":"user","content":[{"type":"text","text":"what is in this repository?"}],"timestamp":1764620000000},` +
		piResponsesTurn(provider, api, model) + `,` +
		`{"role":"assistant","content":[{"type":"text","text":"A README.","textSignature":"msg_0d1371c17149d439016921b8e5a0c48197b1e7d3e4f5a6b7c8"}],` +
		`"api":"` + api + `","provider":"` + provider + `","model":"` + model + `","usage":{"input":5500,"output":12,"cacheRead":0,"cacheWrite":0,"totalTokens":5512},"stopReason":"stop","timestamp":1764620004000}]`
}

// TestFaithfulResponsesReplayIsReady: a valid GPT-5 / Codex history with
// reasoning and tool calls, replayed to its own target, comes back ready
// with both calls and both results (issue 20: the contract measured the
// stored "call|item" id against the 64-byte call_id limit).
func TestFaithfulResponsesReplayIsReady(t *testing.T) {
	for _, tg := range []transcript.Target{
		{Provider: "openai", API: "openai-responses", Model: "gpt-5"},
		{Provider: "openai-codex", API: "openai-codex-responses", Model: "gpt-5-codex"},
	} {
		t.Run(tg.API, func(t *testing.T) {
			input := piResponsesSession(tg.Provider, tg.API, tg.Model)
			tr, env, rej := runChain(t, tg, []byte(input), nil, stage.Settings{})
			if rej != nil {
				t.Fatalf("a faithful replay was refused: %v (report %v)", rej, env.Report.Stages)
			}
			out := string(tr.MessagesJSON())
			for _, id := range []string{piCallA, piCallB} {
				if n := strings.Count(out, id); n != 2 {
					t.Errorf("%s appears %d times, want the call and its result\n%s", id, n, out)
				}
			}
		})
	}
}

// TestCompleteCallsSurviveEveryTarget: the calls of a GPT-5 turn have
// complete arguments and keep pi-ai's leftover partialJson; replayed to any
// target, both calls and both results survive (ids may be rewritten). Issue
// 20: tool_call_inputs kept such a call only while its id still read
// "call|item", which tool_call_ids_early had already rewritten for Chat,
// Gemini and Mistral; for Anthropic and Bedrock the turn was frozen as a
// signed turn and dropped whole for the partialJson.
func TestCompleteCallsSurviveEveryTarget(t *testing.T) {
	input := piResponsesSession("openai", "openai-responses", "gpt-5")
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			tr, env := run(t, tc.t, []byte(input), nil)
			calls, results := 0, 0
			for _, m := range tr.Messages {
				if m.Role() == transcript.RoleToolResult {
					results++
				}
				blocks, _ := m.Blocks()
				for _, b := range blocks {
					if b.IsToolCall() {
						calls++
					}
				}
			}
			out := string(tr.MessagesJSON())
			if calls != 2 || results != 2 || !strings.Contains(out, "total 8") || !strings.Contains(out, "# hygiene") {
				t.Fatalf("%d calls and %d results survive, want 2 and 2 with their texts (report %v)\n%s", calls, results, env.Report.Stages, out)
			}
		})
	}
}

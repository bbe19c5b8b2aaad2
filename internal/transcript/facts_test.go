package transcript_test

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// TestFactsAtDecodeMatchAReading: the facts the decode records of every
// message (from its tape entry) are the facts read from the message's
// members and blocks, over realistic histories of every API family and
// generated ones with every kind of damage, images and invalid text
// included.
func TestFactsAtDecodeMatchAReading(t *testing.T) {
	var inputs [][]byte
	for i, tg := range sessiongen.RealAPIs {
		inputs = append(inputs, sessiongen.RealShapes(sessiongen.RealConfig{Seed: uint64(i), Target: tg, Turns: 5, Foreign: true,
			StandIns: true, ExtraRoles: true}).History())
	}
	for seed := range uint64(4) {
		inputs = append(inputs, sessiongen.New(sessiongen.Config{Seed: seed, Messages: 60, ToolCallDensity: 0.7, Damage: sessiongen.Heavy(),
			Images: 1, ImageWidth: 32, ImageHeight: 32, RealLengthIDs: true}).History())
	}
	inputs = append(inputs, []byte(`[null,"x",{"role":"user","content":[null,{"type":"document","text":"t"},{"type":"tool_use"},{"type":"x"},{}]},`+
		`{"role":"tool","details":1,"provenance":{},"content":"\ud800"},{"role":"compactionSummary"},{"role":"assistant","content":[{"type":"redacted_thinking"}]},`+
		`{"role":"assistant","content":[{"type":"functionCall"},{"type":"video"},{"type":"image"}]},{"role":7,"content":[{"type":7}]},`+
		`{"role":"assistant","usage":`+wholeUsage+`,"usage":"x"},{"role":"assistant","usage":"x","usage":`+wholeUsage+`},`+
		`{"role":"assistant","usag\u0065":`+wholeUsage+`},{"role":"assistant","usage":{"input":1,"output":2}},{"role":"user","usage":"x"},`+
		`{"role":"assistant","content":[{"type":"toolCall","name":"browser.open"},{"type":"toolCall","name":"read","name":"a b"},{"type":"toolUse","name":7},`+
		`{"type":"toolCall","nam\u0065":"x y"},{"type":"text","name":"a b"},{"type":"functionCall","name":"re\u0061d"}]},`+
		`{"role":"toolResult","toolName":"mcp:read"},{"role":"tool","toolName":"read"},{"role":"user","toolName":"a b"},{"role":"toolResult","toolName":null}]`))
	union := transcript.Facts(0)
	for i, input := range inputs {
		tr, err := transcript.FromMessages(input, transcript.Target{Provider: "anthropic", API: "anthropic-messages"})
		if err != nil {
			t.Fatal(err)
		}
		for j, m := range tr.Messages {
			if got, want := m.Facts(), transcript.ReadFacts(m); got != want {
				t.Fatalf("input %d, message %d: decode recorded %b, a reading gives %b: %s", i, j, got, want, m.Raw())
			}
			raw, has := m.Get("usage")
			if whole := has && jsontape.NormalUsage(raw); m.IsObject() && m.UsageWhole() != whole {
				t.Fatalf("input %d, message %d: decode recorded a whole usage %v, a reading gives %v: %s", i, j, m.UsageWhole(), whole, m.Raw())
			}
			union |= m.Facts()
		}
	}
	if all := transcript.FactToolNameOff<<1 - 1; union != all {
		t.Fatalf("the inputs hold facts %b of %b: the test does not see every fact", union, all)
	}
}

// wholeUsage is a usage as OpenClaw writes it: every count and a whole
// cost.
const wholeUsage = `{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}`

// TestFactsFollowEdits: a job's facts are what its messages hold as
// edited: a block a rule adds, replaces or edits, a member it deletes, a
// message it builds or removes.
func TestFactsFollowEdits(t *testing.T) {
	tr, err := transcript.FromMessages([]byte(`[{"role":"user","content":"hi","details":{}},{"role":"assistant","content":[{"type":"text","text":"yo"}]}]`),
		transcript.Target{Provider: "anthropic", API: "anthropic-messages"})
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string, want transcript.Facts) {
		t.Helper()
		if got := tr.Facts(); got != want {
			t.Fatalf("%s: facts %b, want %b", step, got, want)
		}
	}
	base := transcript.FactUser | transcript.FactAssistant | transcript.FactText
	check("as decoded", base|transcript.FactDetails|transcript.FactUsageOff)
	tr.Messages[1].Set("usage", []byte(wholeUsage))
	check("a whole usage written", base|transcript.FactDetails)
	if tr.Messages[1].UsageWhole() {
		t.Fatal("a written usage is taken as the decode's whole one")
	}
	tr.Messages[0].Delete("details")
	check("details deleted", base)
	blocks, _ := tr.Messages[1].Blocks()
	tr.Messages[1].SetBlocks(append(blocks, transcript.NewBlock(transcript.Field{Key: "type", Value: transcript.JSONString("image")})))
	check("an image added", base|transcript.FactImage)
	blocks, _ = tr.Messages[1].Blocks()
	blocks[0].SetString("type", "thinking")
	check("a block's type edited", transcript.FactUser|transcript.FactAssistant|transcript.FactImage|transcript.FactThinking)
	tr.Messages = append(tr.Messages, transcript.NewMessage(transcript.Field{Key: "role", Value: transcript.JSONString("toolResult")}))
	check("a result built", transcript.FactUser|transcript.FactAssistant|transcript.FactImage|transcript.FactThinking|transcript.FactToolResult)
	tr.Messages = tr.Messages[:1]
	check("messages removed", transcript.FactUser)
	tr.Messages[0].SetContentString("still text")
	check("content rewritten", transcript.FactUser)
}

package turns

import (
	"bytes"
	"context"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Usage values of the vectors: u is non-zero, z is zero.
const (
	u = `{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15}`
	z = `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0}`
)

const sentinel = `[{"type":"text","text":"[assistant turn failed before producing content]"}]`

func TestAssistantReplay(t *testing.T) {
	bedrock := stagetest.Case{Target: bedrockTarget}
	cases := []ruleCase{
		{
			name: "V40 silent reply removed",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"NO_REPLY"}],"stopReason":"stop","usage":` + u + `},{"role":"user","content":"r"}]`,
			want: `[{"role":"user","content":"q"},{"role":"user","content":"r"}]`,
		},
		{
			name: "V40 reasoning-only length turn removed",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"…"}],"stopReason":"length","usage":` + u + `}]`,
			want: `[{"role":"user","content":"q"}]`,
		},
		{
			name: "V40 empty length turn kept",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[],"stopReason":"length","usage":` + u + `}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[],"stopReason":"length","usage":` + u + `}]`,
		},
		{
			name: "V40 length turn with visible text kept",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"…"},{"type":"text","text":"partial"}],"stopReason":"length","usage":` + u + `}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"…"},{"type":"text","text":"partial"}],"stopReason":"length","usage":` + u + `}]`,
		},
		{
			name: "length turn with reasoning and blank text removed; with a tool call kept",
			in:   `[{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"text","text":" "}],"stopReason":"length"},{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"stopReason":"length","usage":` + u + `},{"role":"user","content":"q"}]`,
			want: `[{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"stopReason":"length","usage":` + u + `},{"role":"user","content":"q"}]`,
		},
		{
			name: "NO_REPLY removed with only reasoning left drops the turn",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},{"type":"text","text":" NO_REPLY "}],"stopReason":"stop","usage":` + u + `},{"role":"user","content":"r"}]`,
			want: `[{"role":"user","content":"q"},{"role":"user","content":"r"}]`,
		},
		{
			name: "blank text removed, reasoning kept on a stop turn",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"  "}],"stopReason":"stop","usage":` + u + `},{"role":"user","content":"r"}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"}],"stopReason":"stop","usage":` + u + `},{"role":"user","content":"r"}]`,
		},
		{
			name: "assistant string content: silent and blank dropped, text wrapped",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":"NO_REPLY","stopReason":"stop"},{"role":"assistant","content":"  ","stopReason":"stop"},{"role":"assistant","content":"hello","stopReason":"stop","usage":` + u + `},{"role":"user","content":"r"}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"hello"}],"stopReason":"stop","usage":` + u + `},{"role":"user","content":"r"}]`,
		},
		{
			name: "object content wrapped; null content becomes [] and gets the sentinel on error",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":{"type":"text","text":"hi"},"stopReason":"stop","usage":` + u + `},{"role":"assistant","content":null,"stopReason":"error"},{"role":"user","content":"r"}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"hi"}],"stopReason":"stop","usage":` + u + `},{"role":"assistant","content":` + sentinel + `,"stopReason":"error"},{"role":"user","content":"r"}]`,
		},
		{
			name: "user blank string dropped, blank text blocks removed, emptied array dropped",
			in:   `[{"role":"user","content":"  "},{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"a"}]},{"role":"user","content":[{"type":"text","text":" \n"}]},{"role":"user","content":[]}]`,
			want: `[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"user","content":[]}]`,
		},
		{
			name: "transcript-only assistants dropped",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"mirror"}],"provider":"openclaw","model":"delivery-mirror"},{"role":"assistant","content":[{"type":"text","text":"inj"}],"provider":"openclaw","model":"gateway-injected"},{"role":"assistant","content":[{"type":"text","text":"real"}],"provider":"openclaw","model":"other","stopReason":"stop","usage":` + u + `},{"role":"user","content":"r"}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"real"}],"provider":"openclaw","model":"other","stopReason":"stop","usage":` + u + `},{"role":"user","content":"r"}]`,
		},
		{
			name: "V41 Bedrock empty error turn gets the sentinel",
			c:    bedrock,
			in:   `[{"role":"user","content":"a"},{"role":"assistant","content":[],"stopReason":"error"},{"role":"user","content":"b"}]`,
			want: `[{"role":"user","content":"a"},{"role":"assistant","content":` + sentinel + `,"stopReason":"error"},{"role":"user","content":"b"}]`,
		},
		{
			name: "V41 trailing empty error turn trimmed",
			c:    bedrock,
			in:   `[{"role":"user","content":"a"},{"role":"assistant","content":[],"stopReason":"error"}]`,
			want: `[{"role":"user","content":"a"}]`,
		},
		{
			name: "V41 zero-usage empty stop treated the same way",
			c:    bedrock,
			in:   `[{"role":"user","content":"a"},{"role":"assistant","content":[],"stopReason":"stop","usage":` + z + `},{"role":"user","content":"b"},{"role":"assistant","content":[],"stopReason":"stop","usage":` + z + `}]`,
			want: `[{"role":"user","content":"a"},{"role":"assistant","content":` + sentinel + `,"stopReason":"stop","usage":` + z + `},{"role":"user","content":"b"}]`,
		},
		{
			name: "V41 empty stop with non-zero usage kept as-is",
			c:    bedrock,
			in:   `[{"role":"user","content":"a"},{"role":"assistant","content":[],"stopReason":"stop","usage":` + u + `}]`,
			want: `[{"role":"user","content":"a"},{"role":"assistant","content":[],"stopReason":"stop","usage":` + u + `}]`,
		},
		{
			name: "§3.16 blank-only error text turn dropped",
			c:    bedrock,
			in:   `[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"  "}],"stopReason":"error"},{"role":"user","content":"b"}]`,
			want: `[{"role":"user","content":"a"},{"role":"user","content":"b"}]`,
		},
		{
			name: "trailing sentinel turns popped; a real reply equal to the sentinel stays",
			in:   `[{"role":"user","content":"a"},{"role":"assistant","content":` + sentinel + `,"stopReason":"stop","usage":` + u + `},{"role":"user","content":"b"},{"role":"assistant","content":` + sentinel + `,"stopReason":"error","usage":` + u + `},{"role":"assistant","content":` + sentinel + `,"stopReason":"stop"}]`,
			want: `[{"role":"user","content":"a"},{"role":"assistant","content":` + sentinel + `,"stopReason":"stop","usage":` + u + `},{"role":"user","content":"b"}]`,
		},
		{
			name: "a real reply equal to the sentinel at the end is kept",
			in:   `[{"role":"user","content":"a"},{"role":"assistant","content":` + sentinel + `,"stopReason":"stop","usage":` + u + `}]`,
			want: `[{"role":"user","content":"a"},{"role":"assistant","content":` + sentinel + `,"stopReason":"stop","usage":` + u + `}]`,
		},
		{
			name: "compaction-stale empty stop turn is not a zero-usage failure",
			in:   `[{"role":"assistant","content":[],"stopReason":"stop","usage":` + z + `,"providerReplay":{}},{"role":"compactionSummary","timestamp":10},{"role":"user","content":"q"},{"role":"assistant","content":[],"stopReason":"stop","timestamp":5}]`,
			want: `[{"role":"assistant","content":[],"stopReason":"stop","usage":` + z + `,"providerReplay":{}},{"role":"compactionSummary","timestamp":10},{"role":"user","content":"q"},{"role":"assistant","content":[],"stopReason":"stop","timestamp":5}]`,
		},
		{
			name: "other roles and non-objects pass through",
			in:   `[null,"x",{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":""}]},{"role":"custom","content":""}]`,
			want: `[null,"x",{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":""}]},{"role":"custom","content":""}]`,
		},
	}
	runCases(t, cases, AssistantReplay())
}

func FuzzAssistantReplay(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"assistant","content":[{"type":"text","text":"NO_REPLY"}],"stopReason":"stop"}]`,
		`[{"role":"user","content":"a"},{"role":"assistant","content":[],"stopReason":"error"},{"role":"user","content":"b"}]`,
		`[{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":" "}],"stopReason":"length"}]`,
		`[{"role":"assistant","content":{"type":"text","text":"x"}},{"role":"assistant","content":7,"stopReason":"stop","usage":{"input":0}}]`,
		`[{"role":"user","content":[{"type":"text","text":" "}]},{"role":"assistant","content":"NO_REPLY"}]`,
	}, AssistantReplay())
}

// TestIsSilentBlockReadsRaw holds isSilentBlock, which reads the raw text
// (or, for a block as decoded, what the tape recorded of its ends), to its
// definition on the decoded text (blank or the silent reply once trimmed;
// a text block without string text), on texts that spell the token with
// escapes, pad it, or nearly match it, in blocks built and decoded.
func TestIsSilentBlockReadsRaw(t *testing.T) {
	texts := []string{`"NO_REPLY"`, `" NO_REPLY\n"`, `"\u004eO_REPLY"`, `"\u004E\u004f_REPLY\t"`, `"NO_REPLY."`, `"no_reply"`,
		`"\u00a0"`, `""`, `"   "`, `"NO_REPL"`, `"x NO_REPLY"`, `"\\NO_REPLY"`, `"\u2003NO_REPLY\u2003"`, `null`, `7`,
		`"NO\u005fREPLY"`, `"NO_REPL\u0059"`, `"NO_REPLY\u0020"`, `"NO_REPLY\n"`, `"NOT_REPLY"`, `"N"`,
		`"NO_REPLY \n\t"`, `"NO_REPLYX\n"`, `"NO_REPL\n"`, `"Hello there.\n"`, `"N\n"`, `"NO_REPLY\u00a0"`, `"NO\u005fREPLY\n"`}
	for _, typ := range []string{"text", "thinking"} {
		for _, raw := range texts {
			built := transcript.NewBlock(transcript.Field{Key: "type", Value: transcript.JSONString(typ)}, transcript.Field{Key: "text", Value: []byte(raw)})
			tr, err := transcript.FromMessages([]byte(`[{"role":"assistant","content":[{"type":"`+typ+`","text":`+raw+`}]}]`), transcript.Target{})
			if err != nil {
				t.Fatal(err)
			}
			decoded, _ := tr.Messages[0].Blocks()
			for _, b := range []*transcript.Block{built, decoded[0]} {
				want := typ == "text"
				if s, ok := b.Text(); ok {
					want = isSilentOrBlank(s)
				}
				if got := isSilentBlock(b); got != want {
					t.Errorf("%s block, text %s: silent %v, want %v", typ, raw, got, want)
				}
			}
		}
	}
}

// TestAssistantReplayAgainSaysNoEdit: the again pass tells the runner it
// edited nothing (stage.Env.NoEdit, so the proofs made before it stand)
// exactly when it left every message as it found it. An earlier rule
// rewrites each assistant's content to one text (so the again pass judges
// them); a proof is made after it, and checked after the again pass.
func TestAssistantReplayAgainSaysNoEdit(t *testing.T) {
	in := `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"a"}],"stopReason":"stop","usage":` + u + `},{"role":"user","content":"r"}]`
	for _, tc := range []struct {
		name, text string
		stands     bool
	}{
		{"visible text: nothing to do", "fine", true},
		{"silent reply: dropped", "NO_REPLY", false},
		{"blank text: dropped", " ", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rewrite := stage.Stage{Name: "rewrite", Apply: func(_ context.Context, tr *transcript.Transcript, _ *stage.Env) error {
				for _, m := range tr.Messages {
					if m.Role() == transcript.RoleAssistant {
						m.SetBlocks([]*transcript.Block{transcript.TextBlock(tc.text)})
					}
				}
				return nil
			}}
			var w stagetest.Watch
			res := stagetest.Case{Target: anthropicTarget}.Apply(t, in, rewrite, w.Prove(), AssistantReplayAgain(), w.Look())
			if w.Stands != tc.stands {
				t.Fatalf("the proof stands %v after the again pass, want %v (output %s)", w.Stands, tc.stands, res.JSON)
			}
			if w.Stands && !bytes.Equal(res.JSON, w.Before) {
				t.Fatalf("the again pass said it edited nothing, but\n%s\nbecame\n%s", w.Before, res.JSON)
			}
		})
	}
}

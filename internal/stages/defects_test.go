package stages

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Reproducers of issue 16 item 5: the defects found by running OpenClaw's
// TypeScript under Node beside this chain.

var (
	anthropicOpus   = transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	openaiResponses = transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}
)

// TestIDTrimIsJavaScriptTrim: U+0085 is not white space to JavaScript's
// trim(), U+FEFF is; and a result that matched after trimming keeps its
// first claim over a later exact one (issue 20).
func TestIDTrimIsJavaScriptTrim(t *testing.T) {
	call := `{"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"read","arguments":{}}],"stopReason":"toolUse"}`
	for _, tc := range []struct {
		name     string
		target   transcript.Target
		messages string
		want     []string // substrings the output must hold
		wantNot  []string // substrings it must not hold
	}{
		{
			name:   "NEL-padded result does not displace the exact one",
			target: anthropicOpus,
			messages: `[{"role":"user","content":"go"},` + call + `,
				{"role":"toolResult","toolCallId":"toolu_1\u0085","toolName":"read","content":[{"type":"text","text":"NEL one"}]},
				{"role":"toolResult","toolCallId":"toolu_1","toolName":"read","content":[{"type":"text","text":"REAL one"}]},
				{"role":"user","content":"next"}]`,
			want:    []string{"REAL one"},
			wantNot: []string{"NEL one"},
		},
		{
			name:   "BOM-padded result keeps its call",
			target: anthropicOpus,
			messages: `[{"role":"user","content":"go"},` + call + `,
				{"role":"toolResult","toolCallId":"\ufefftoolu_1\ufeff","toolName":"read","content":[{"type":"text","text":"REAL one"}]},
				{"role":"user","content":"next"}]`,
			want:    []string{"REAL one"},
			wantNot: []string{"missing tool result"},
		},
		{
			// issue 20: the first claim is kept, as OpenClaw keeps it; an
			// exact id wins only over an id-less adoption
			name:   "a space-padded result that came first keeps its claim",
			target: anthropicOpus,
			messages: `[{"role":"user","content":"go"},` + call + `,
				{"role":"toolResult","toolCallId":" toolu_1 ","toolName":"read","content":[{"type":"text","text":"PADDED one"}]},
				{"role":"toolResult","toolCallId":"toolu_1","toolName":"read","content":[{"type":"text","text":"REAL one"}]},
				{"role":"user","content":"next"}]`,
			want:    []string{"PADDED one", `"toolCallId":"toolu_1"`},
			wantNot: []string{"REAL one"},
		},
		{
			name:   "responses: c9 is not paired with c9 NEL",
			target: openaiResponses,
			messages: `[{"role":"user","content":"go"},
				{"role":"assistant","content":[{"type":"toolCall","id":"c9","name":"read","arguments":{}}],"stopReason":"toolUse"},
				{"role":"toolResult","toolCallId":"c9\u0085","toolName":"read","content":[{"type":"text","text":"NEL one"}]},
				{"role":"user","content":"next"}]`,
			wantNot: []string{"NEL one"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, env := run(t, tc.target, []byte(tc.messages), nil)
			out := tr.MessagesJSON()
			for _, s := range tc.want {
				if !bytes.Contains(out, []byte(s)) {
					t.Errorf("output lacks %q (report %v)\n%s", s, env.Report.Stages, out)
				}
			}
			for _, s := range tc.wantNot {
				if bytes.Contains(out, []byte(s)) {
					t.Errorf("output holds %q (report %v)\n%s", s, env.Report.Stages, out)
				}
			}
			checkChain(t, tc.target, []byte(tc.messages))
		})
	}
}

// TestOnePassReachesTheFixedPoint: an assistant that an earlier rule
// empties is judged again by the rules that judge emptiness in the same pass.
func TestOnePassReachesTheFixedPoint(t *testing.T) {
	input := `[{"role":"user","content":"hi"},
		{"role":"assistant","stopReason":"length","content":[{"type":"thinking","thinking":"plan","thinkingSignature":"sig=="},{"type":"toolCall","id":"","name":"read","arguments":{}}]},
		{"role":"user","content":"again"}]`
	for _, name := range []string{"openai-completions", "google", "mistral"} {
		t.Run(name, func(t *testing.T) {
			checkChain(t, targetNamed(t, name), []byte(input))
		})
	}
}

// TestAdoptionNeverDisplacesAnExactMatch: the legacy id-less result may
// adopt the id of the frame's single call only when no result carries it.
func TestAdoptionNeverDisplacesAnExactMatch(t *testing.T) {
	input := `[{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"toolUse","id":"","name":"read","input":{}},{"type":"toolCall","id":"c2","name":"read","arguments":{}}],"stopReason":"toolUse"},
		{"role":"toolResult","toolCallId":"","toolName":"read","content":[{"type":"text","text":"id-less"}]},
		{"role":"toolResult","toolCallId":"c2","toolName":"read","content":[{"type":"text","text":"real"}]},
		{"role":"user","content":"next"}]`
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			tr, env := run(t, tc.t, []byte(input), nil)
			out := string(tr.MessagesJSON())
			if !strings.Contains(out, `"real"`) {
				t.Fatalf("the real c2 result was lost (report %v)\n%s", env.Report.Stages, out)
			}
			checkChain(t, tc.t, []byte(input))
		})
	}
}

func targetNamed(t *testing.T, name string) transcript.Target {
	t.Helper()
	for _, tc := range targets {
		if tc.name == name {
			return tc.t
		}
	}
	t.Fatalf("no target %q", name)
	return transcript.Target{}
}

// TestTextRepairInTheChain: lone surrogates and invalid UTF-8 in text, tool
// arguments and tool results become U+FFFD for every target; a signed
// thinking block that holds one is dropped, never edited.
func TestTextRepairInTheChain(t *testing.T) {
	input := "[{\"role\":\"user\",\"content\":\"cut emoji \\ud83d\"}," +
		`{"role":"assistant","stopReason":"toolUse","content":[{"type":"thinking","thinking":"plan \ud83d","thinkingSignature":"sig=="},{"type":"text","text":"ok"},{"type":"toolCall","id":"toolu_1","name":"read","arguments":{"path":"a\udc00"}}]},` +
		"{\"role\":\"toolResult\",\"toolCallId\":\"toolu_1\",\"toolName\":\"read\",\"content\":[{\"type\":\"text\",\"text\":\"bin \xff\xfe\"}]}," +
		`{"role":"user","content":"next \ud83d\ude00"}]`
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			tr, env := run(t, tc.t, []byte(input), nil)
			out := tr.MessagesJSON()
			again, err := transcript.FromMessages(out, transcript.Target(tc.t))
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range again.Messages {
				if m.HasInvalidText() {
					t.Fatalf("message %d still holds invalid text: %s", i, out)
				}
			}
			if bytes.Contains(out, []byte("plan")) {
				t.Errorf("the signed thinking block with a lone surrogate was kept: %s", out)
			}
			if !bytes.Contains(out, []byte(`next \ud83d\ude00`)) {
				t.Errorf("an untouched message changed: %s", out)
			}
			if got := env.Report.Stages.Get("text_repair", "repaired"); got < 4 {
				t.Errorf("repaired %d, want at least 4 (report %v)", got, env.Report.Stages)
			}
			checkChain(t, tc.t, []byte(input))
		})
	}
}

// TestResultIDsAlignedAndTrailingTrimmed: a result paired after trimming
// carries its call's exact id (providers compare ids exactly), and a failed
// turn that pairing leaves last is popped in the same pass.
func TestResultIDsAlignedAndTrailingTrimmed(t *testing.T) {
	input := `[{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{}}],"stopReason":"toolUse","usage":{"input":5,"output":5}},
		{"role":"user","content":"wait"},
		{"role":"assistant","content":[],"stopReason":"error"},
		{"role":"toolResult","toolCallId":"\u3000call_1\u3000","toolName":"read","content":[{"type":"text","text":"late one"}]}]`
	for _, name := range []string{"openai-completions", "openrouter-claude", "fallback-unknown"} {
		t.Run(name, func(t *testing.T) {
			tg := targetNamed(t, name)
			tr, env := run(t, tg, []byte(input), nil)
			out := string(tr.MessagesJSON())
			if !strings.Contains(out, "late one") {
				t.Errorf("the result was lost (report %v)\n%s", env.Report.Stages, out)
			}
			if strings.Contains(out, `"stopReason":"error"`) {
				t.Errorf("the failed turn pairing left last was kept (report %v)\n%s", env.Report.Stages, out)
			}
			checkChain(t, tg, []byte(input)) // each call answered by a result with its exact id
		})
	}
}

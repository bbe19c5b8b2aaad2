package turns

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
)

func TestThoughtSignatures(t *testing.T) {
	google := stagetest.Case{Target: googleTarget}
	vllm := stagetest.Case{Target: vllmTarget}
	cases := []ruleCase{
		{
			name:   "V28 Google: non-base64 thought_signature removed, base64 thoughtSignature kept",
			c:      google,
			in:     `[{"role":"assistant","content":[{"type":"text","text":"hi","thought_signature":"msg_abc"},{"type":"toolCall","id":"c1","name":"read","arguments":{},"thoughtSignature":"c2lnbmF0dXJl"}],"stopReason":"toolUse"}]`,
			want:   `[{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","id":"c1","name":"read","arguments":{},"thoughtSignature":"c2lnbmF0dXJl"}],"stopReason":"toolUse"}]`,
			report: map[string]int{"stripped": 1},
		},
		{
			name: "V28 non-Google default: only msg_ values of thought_signature removed",
			c:    vllm,
			in:   `[{"role":"assistant","content":[{"type":"text","text":"a","thought_signature":"msg_abc"},{"type":"text","text":"b","thought_signature":"not base64!"},{"type":"text","text":"c","thoughtSignature":"msg_x"}]}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b","thought_signature":"not base64!"},{"type":"text","text":"c","thoughtSignature":"msg_x"}]}]`,
		},
		{
			name: "Google: base64url, padded, spaced and non-string values",
			c:    google,
			in:   `[{"role":"assistant","content":[{"type":"text","text":"a","thought_signature":"c2ln-_8="},{"type":"text","text":"b","thought_signature":"c2ln bmF0\ndXJl"},{"type":"text","text":"c","thought_signature":7},{"type":"text","text":"d","thoughtSignature":"c2+_"},{"type":"text","text":"e","thoughtSignature":"===="},{"type":"text","text":"f","thoughtSignature":"c2lnbmF0dXK="}]}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"a","thought_signature":"c2ln-_8="},{"type":"text","text":"b","thought_signature":"c2ln bmF0\ndXJl"},{"type":"text","text":"c"},{"type":"text","text":"d"},{"type":"text","text":"e"},{"type":"text","text":"f"}]}]`,
		},
		{
			name: "error turns and other roles are untouched",
			c:    google,
			in:   `[{"role":"assistant","stopReason":"error","content":[{"type":"text","text":"a","thought_signature":"msg_1"}]},{"role":"user","content":[{"type":"text","text":"a","thought_signature":"msg_1"}]}]`,
			want: `[{"role":"assistant","stopReason":"error","content":[{"type":"text","text":"a","thought_signature":"msg_1"}]},{"role":"user","content":[{"type":"text","text":"a","thought_signature":"msg_1"}]}]`,
		},
		{
			name: "preserveSignatures (Anthropic) keeps everything",
			in:   `[{"role":"assistant","content":[{"type":"text","text":"a","thought_signature":"msg_1"}]}]`,
			want: `[{"role":"assistant","content":[{"type":"text","text":"a","thought_signature":"msg_1"}]}]`,
		},
	}
	runCases(t, cases, ThoughtSignatures())
}

func TestIsStrictBase64(t *testing.T) {
	for s, want := range map[string]bool{
		"c2lnbmF0dXJl": true, "c2lnbmF0dXI=": true, "c2lnbmF0dQ==": true, "_-8": true,
		"": false, "msg_abc": true, "c2lnbmF0dXK=": false, "c2lnbmF0dXJm": true, "ab=c": false, "c2+_": false, "c2lu!": false,
	} {
		if got := isStrictBase64(s); got != want {
			t.Errorf("isStrictBase64(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzThoughtSignatures(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"assistant","content":[{"type":"text","text":"hi","thought_signature":"msg_abc"},{"type":"toolCall","id":"c1","name":"read","arguments":{},"thoughtSignature":"c2lnbmF0dXJl"}]}]`,
		`[{"role":"assistant","content":[{"type":"text","text":"a","thought_signature":"c2ln-_8="}]}]`,
	}, ThoughtSignatures())
}

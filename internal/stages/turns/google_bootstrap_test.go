package turns

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

func TestGoogleBootstrap(t *testing.T) {
	v29 := `[{"role":"assistant","content":[{"type":"text","text":"hello"}],"timestamp":500},{"role":"user","content":"hi"}]`
	withBootstrap := `[{"role":"user","content":"(session bootstrap)","timestamp":500},{"role":"assistant","content":[{"type":"text","text":"hello"}],"timestamp":500},{"role":"user","content":"hi"}]`
	now := stage.Settings{Request: settings.Request{NowMs: new(int64(9000))}}
	for _, tc := range []struct {
		name    string
		c       stagetest.Case
		in      string
		want    string
		entries []string // data of appended google-turn-ordering-bootstrap entries
	}{
		{"V29 Google: bootstrap prepended, marker appended once", stagetest.Case{Target: googleTarget}, v29, withBootstrap, []string{`{"timestamp":500}`}},
		{"V29 stamped with now_ms", stagetest.Case{Target: googleTarget, Settings: now}, v29,
			`[{"role":"user","content":"(session bootstrap)","timestamp":9000},{"role":"assistant","content":[{"type":"text","text":"hello"}],"timestamp":500},{"role":"user","content":"hi"}]`, []string{`{"timestamp":9000}`}},
		{"V29 marker already persisted: not appended again", stagetest.Case{Target: googleTarget, CustomEntries: []transcript.CustomEntry{{CustomType: "google-turn-ordering-bootstrap", Data: []byte(`{"timestamp":1}`)}}}, v29, withBootstrap, nil},
		{"V30 vllm openai-completions: bootstrap, no marker", stagetest.Case{Target: vllmTarget}, v29, withBootstrap, nil},
		{"no timestamp known: left out", stagetest.Case{Target: vllmTarget}, `[{"role":"assistant","content":[]}]`,
			`[{"role":"user","content":"(session bootstrap)"},{"role":"assistant","content":[]}]`, nil},
		{"user first: no-op", stagetest.Case{Target: googleTarget}, `[{"role":"user","content":"hi"},{"role":"assistant","content":[]}]`, `[{"role":"user","content":"hi"},{"role":"assistant","content":[]}]`, nil},
		{"Anthropic: not this rule's target", stagetest.Case{Target: anthropicTarget}, v29, v29, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.c.Apply(t, tc.in, GoogleBootstrap())
			stagetest.Equal(t, res.JSON, tc.want)
			if len(res.Transcript.AppendEntries) != len(tc.entries) {
				t.Fatalf("appended %d entries, want %d", len(res.Transcript.AppendEntries), len(tc.entries))
			}
			for i, e := range res.Transcript.AppendEntries {
				if e.CustomType != "google-turn-ordering-bootstrap" {
					t.Errorf("custom type %q", e.CustomType)
				}
				stagetest.Equal(t, e.Data, tc.entries[i])
			}
			// V29: running it again is a no-op.
			again := tc.c.Apply(t, string(res.JSON), GoogleBootstrap())
			stagetest.Equal(t, again.JSON, string(res.JSON))
		})
	}
	// Twice in one job (hook and fallback places): one turn, one entry.
	res := stagetest.Case{Target: googleTarget}.Apply(t, v29, GoogleBootstrap(), GoogleBootstrap())
	stagetest.Equal(t, res.JSON, withBootstrap)
	if len(res.Transcript.AppendEntries) != 1 {
		t.Errorf("appended %d entries in one job, want 1", len(res.Transcript.AppendEntries))
	}
}

func FuzzGoogleBootstrap(f *testing.F) {
	fuzzStage(f, []string{`[{"role":"assistant","content":[{"type":"text","text":"hello"}]},{"role":"user","content":"hi"}]`}, GoogleBootstrap())
}

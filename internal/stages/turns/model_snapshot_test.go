package turns

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

func snap(data string) transcript.CustomEntry {
	return transcript.CustomEntry{CustomType: "model-snapshot", Data: []byte(data)}
}

func TestModelChanged(t *testing.T) {
	same := snap(`{"timestamp":1,"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-opus-4-6"}`)
	for _, tc := range []struct {
		name    string
		entries []transcript.CustomEntry
		target  transcript.Target
		want    bool
	}{
		{"no prior snapshot: not changed", nil, anthropicTarget, false},
		{"same model", []transcript.CustomEntry{same}, anthropicTarget, false},
		{"provider spelled differently resolves the same", []transcript.CustomEntry{same}, transcript.Target{Provider: " Anthropic ", API: "anthropic-messages", Model: "claude-opus-4-6"}, false},
		{"newest snapshot decides", []transcript.CustomEntry{same, {CustomType: "other"}, snap(`{"provider":"openai","modelApi":"openai-responses","modelId":"gpt-5"}`)}, anthropicTarget, true},
		{"model id differs", []transcript.CustomEntry{snap(`{"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-sonnet-4"}`)}, anthropicTarget, true},
		{"null compares as empty", []transcript.CustomEntry{snap(`{"provider":"vllm","modelApi":null,"modelId":"m"}`)}, transcript.Target{Provider: "vllm", Model: "m"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ModelChanged(tc.entries, policy.Resolve(tc.target)); got != tc.want {
				t.Errorf("ModelChanged = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestModelSnapshot(t *testing.T) {
	msgs := `[{"role":"user","content":"q","timestamp":100},{"role":"assistant","content":[],"timestamp":300},{"role":"user","content":"r","timestamp":"1970-01-01T00:00:00.200Z"}]`
	for _, tc := range []struct {
		name    string
		c       stagetest.Case
		msgs    string
		want    string // the appended entry's data; "" for none
		appends int
	}{
		{"first snapshot, stamped with now_ms", stagetest.Case{Target: anthropicTarget, Settings: stage.Settings{Request: settings.Request{NowMs: new(int64(42))}}}, msgs,
			`{"timestamp":42,"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-opus-4-6"}`, 1},
		{"without now_ms, the newest message timestamp", stagetest.Case{Target: anthropicTarget}, msgs,
			`{"timestamp":300,"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-opus-4-6"}`, 1},
		{"no timestamp anywhere: left out", stagetest.Case{Target: vllmTarget}, `[]`,
			`{"provider":"vllm","modelApi":"openai-completions","modelId":"meta-llama/Llama-3.3-70B-Instruct"}`, 1},
		{"same model as the prior snapshot: nothing", stagetest.Case{Target: anthropicTarget, CustomEntries: []transcript.CustomEntry{snap(`{"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-opus-4-6"}`)}}, msgs, "", 0},
		{"changed model: appended", stagetest.Case{Target: anthropicTarget, CustomEntries: []transcript.CustomEntry{snap(`{"provider":"openai","modelApi":"openai-responses","modelId":"gpt-5"}`)}}, msgs,
			`{"timestamp":300,"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-opus-4-6"}`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.c.Apply(t, tc.msgs, ModelSnapshot(), ModelSnapshot())
			if n := len(res.Transcript.AppendEntries); n != tc.appends {
				t.Fatalf("appended %d entries, want %d", n, tc.appends)
			}
			if tc.appends == 1 {
				e := res.Transcript.AppendEntries[0]
				if e.CustomType != "model-snapshot" {
					t.Errorf("custom type %q", e.CustomType)
				}
				stagetest.Equal(t, e.Data, tc.want)
			}
			stagetest.Equal(t, res.JSON, tc.msgs)
		})
	}
}

func FuzzModelSnapshot(f *testing.F) {
	fuzzStage(f, []string{`[{"role":"user","content":"q","timestamp":100}]`}, ModelSnapshot())
}

// TestSnapshotTimeChunked checks that the newest message timestamp is the
// same whether the history is read in one run or in 2 to 8 chunks, with the
// newest message at the start, in the middle, at the end, or absent.
func TestSnapshotTimeChunked(t *testing.T) {
	for _, newest := range []int{0, 37, 99, -1} {
		var parts []string
		for i := range 100 {
			switch {
			case i == newest:
				parts = append(parts, `{"role":"user","content":"n","timestamp":1776000999000}`)
			case i%7 == 3:
				parts = append(parts, `{"role":"user","content":"no time"}`)
			case newest >= 0:
				parts = append(parts, fmt.Sprintf(`{"role":"user","content":"u","timestamp":%d}`, 1776000000000+(i*7919)%1000))
			default:
				parts = append(parts, `{"role":"user","content":"no time"}`)
			}
		}
		tr, err := transcript.FromMessages([]byte("["+strings.Join(parts, ",")+"]"), anthropicTarget)
		if err != nil {
			t.Fatal(err)
		}
		wantTS, wantOK := snapshotTime(tr, &stage.Env{})
		if newest >= 0 && (!wantOK || wantTS != 1776000999000) || newest < 0 && wantOK {
			t.Fatalf("newest %d: sequential %d %v", newest, wantTS, wantOK)
		}
		for helpers := 1; helpers < 8; helpers++ {
			if ts, ok := snapshotTime(tr, &stage.Env{Fanout: fanout.New(helpers, 1)}); ts != wantTS || ok != wantOK {
				t.Fatalf("newest %d, %d helpers: %d %v, sequential %d %v", newest, helpers, ts, ok, wantTS, wantOK)
			}
		}
	}
}

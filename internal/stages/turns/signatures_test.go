package turns

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
)

const omitted = `[{"type":"text","text":"[assistant reasoning omitted]"}]`

func TestReplayInvalidSignatures(t *testing.T) {
	retry := stagetest.Case{Target: anthropicTarget, Settings: stage.Settings{Request: settings.Request{ReplayInvalid: true}}}
	retryDrop := stagetest.Case{Target: copilotTarget, Settings: stage.Settings{Request: settings.Request{ReplayInvalid: true}}}
	in := `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a","thinkingSignature":"Eq1","signature":"s","thought_signature":"t"},{"type":"redacted_thinking","data":"enc"},{"type":"text","text":"x","thinkingSignature":"keep"}]}]`
	cases := []ruleCase{
		{
			name:   "retry strips every signature, the latest assistant included",
			c:      retry,
			in:     in,
			want:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"redacted_thinking"},{"type":"text","text":"x","thinkingSignature":"keep"}]}]`,
			report: map[string]int{"stripped": 2},
		},
		{name: "no retry: unchanged", in: in, want: in},
		{name: "dropThinkingBlocks policy: unchanged", c: retryDrop, in: in, want: in},
	}
	runCases(t, cases, ReplayInvalidSignatures())
}

func TestCompactionStaleSignatures(t *testing.T) {
	v43 := `[{"role":"assistant","timestamp":1000,"content":[{"type":"thinking","thinking":"t","thinkingSignature":"Eq1"},{"type":"text","text":"x"}]},{"role":"compactionSummary","summary":"s","timestamp":2000},{"role":"user","content":"q"},{"role":"assistant","timestamp":3000,"content":[{"type":"thinking","thinking":"t","thinkingSignature":"Eq3"},{"type":"text","text":"y"}]}]`
	cases := []ruleCase{
		{
			name: "V43 compaction-stale signature stripped",
			in:   v43,
			want: `[{"role":"assistant","timestamp":1000,"content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"}]},{"role":"compactionSummary","summary":"s","timestamp":2000},{"role":"user","content":"q"},{"role":"assistant","timestamp":3000,"content":[{"type":"thinking","thinking":"t","thinkingSignature":"Eq3"},{"type":"text","text":"y"}]}]`,
		},
		{
			name: "ISO timestamps, newest summary wins, equal and missing timestamps untouched",
			in:   `[{"role":"compactionSummary","timestamp":"1970-01-01T00:00:01.500Z"},{"role":"assistant","timestamp":1000,"content":[{"type":"thinking","thinking":"a","signature":"s"}]},{"role":"assistant","timestamp":1500,"content":[{"type":"thinking","thinking":"b","signature":"s"}]},{"role":"assistant","content":[{"type":"thinking","thinking":"c","signature":"s"}]},{"role":"compactionSummary","timestamp":1200}]`,
			want: `[{"role":"compactionSummary","timestamp":"1970-01-01T00:00:01.500Z"},{"role":"assistant","timestamp":1000,"content":[{"type":"thinking","thinking":"a"}]},{"role":"assistant","timestamp":1500,"content":[{"type":"thinking","thinking":"b","signature":"s"}]},{"role":"assistant","content":[{"type":"thinking","thinking":"c","signature":"s"}]},{"role":"compactionSummary","timestamp":1200}]`,
		},
		{
			name: "not a signed provider: unchanged",
			c:    stagetest.Case{Target: googleTarget},
			in:   v43,
			want: v43,
		},
	}
	runCases(t, cases, CompactionStaleSignatures())
}

func TestV43ThenInvalidSignatures(t *testing.T) {
	in := `[{"role":"assistant","timestamp":1000,"content":[{"type":"thinking","thinking":"t","thinkingSignature":"Eq1"},{"type":"text","text":"x"}]},{"role":"compactionSummary","summary":"s","timestamp":2000},{"role":"user","content":"q"},{"role":"assistant","timestamp":3000,"content":[{"type":"thinking","thinking":"t","thinkingSignature":"Eq3"},{"type":"text","text":"y"}]}]`
	want := `[{"role":"assistant","timestamp":1000,"content":[{"type":"text","text":"x"}]},{"role":"compactionSummary","summary":"s","timestamp":2000},{"role":"user","content":"q"},{"role":"assistant","timestamp":3000,"content":[{"type":"thinking","thinking":"t","thinkingSignature":"Eq3"},{"type":"text","text":"y"}]}]`
	got := stagetest.Case{Target: anthropicTarget}.Apply(t, in, CompactionStaleSignatures(), InvalidSignatures())
	stagetest.Equal(t, got.JSON, want)
}

func TestInvalidSignatures(t *testing.T) {
	yes, no := true, false
	v42 := `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":"  "}]},{"role":"user","content":"r"},{"role":"assistant","content":[{"type":"thinking","thinking":"b","signature":"Eq…"},{"type":"text","text":"ok"}]}]`
	unsignedLatest := `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"b"},{"type":"text","text":"ok"}]},{"role":"user","content":"r"}]`
	cases := []ruleCase{
		{
			name:   "V42 unsigned thinking replaced, latest untouched",
			in:     v42,
			want:   `[{"role":"user","content":"q"},{"role":"assistant","content":` + omitted + `},{"role":"user","content":"r"},{"role":"assistant","content":[{"type":"thinking","thinking":"b","signature":"Eq…"},{"type":"text","text":"ok"}]}]`,
			report: map[string]int{"dropped": 1},
		},
		{
			name: "replayable signatures of every spelling kept; redacted data counts",
			in:   `[{"role":"assistant","content":[{"type":"thinking","thinking":"a","thinkingSignature":"s"},{"type":"thinking","thinking":"b","thought_signature":"s"},{"type":"redacted_thinking","data":"d"},{"type":"redacted_thinking","data":" "},{"type":"thinking","thinking":"c","signature":7},{"type":"text","text":"t"}]},{"role":"user","content":"q"}]`,
			want: `[{"role":"assistant","content":[{"type":"thinking","thinking":"a","thinkingSignature":"s"},{"type":"thinking","thinking":"b","thought_signature":"s"},{"type":"redacted_thinking","data":"d"},{"type":"text","text":"t"}]},{"role":"user","content":"q"}]`,
		},
		{
			name: "latest assistant not last and not a tool turn: not exempt",
			in:   unsignedLatest,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"ok"}]},{"role":"user","content":"r"}]`,
		},
		{
			name: "caller override keeps the latest",
			c:    stagetest.Case{Target: anthropicTarget, Settings: stage.Settings{Request: settings.Request{PreserveLatestAssistantThinking: &yes}}},
			in:   unsignedLatest,
			want: unsignedLatest,
		},
		{
			name: "caller override false exempts nothing",
			c:    stagetest.Case{Target: anthropicTarget, Settings: stage.Settings{Request: settings.Request{PreserveLatestAssistantThinking: &no}}},
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"b"}]}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":` + omitted + `}]`,
		},
		{
			name: "current-turn tool call is the preserved latest",
			in:   `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"b"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"r"}]}]`,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"b"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"r"}]}]`,
		},
		{
			name: "Bedrock is a signed provider too",
			c:    stagetest.Case{Target: bedrockTarget},
			in:   v42,
			want: `[{"role":"user","content":"q"},{"role":"assistant","content":` + omitted + `},{"role":"user","content":"r"},{"role":"assistant","content":[{"type":"thinking","thinking":"b","signature":"Eq…"},{"type":"text","text":"ok"}]}]`,
		},
		{name: "unsigned provider: unchanged", c: stagetest.Case{Target: googleTarget}, in: v42, want: v42},
	}
	runCases(t, cases, InvalidSignatures())
}

func FuzzReplayInvalidSignatures(f *testing.F) {
	for _, s := range []string{
		`[{"role":"assistant","content":[{"type":"thinking","thinking":"a","thinkingSignature":"Eq1"},{"type":"redacted_thinking","data":"enc"}]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		stagetest.Case{Target: anthropicTarget, Settings: stage.Settings{Request: settings.Request{ReplayInvalid: true}}}.CheckProperties(t, in, ReplayInvalidSignatures())
	})
}

func FuzzCompactionStaleSignatures(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"assistant","timestamp":1000,"content":[{"type":"thinking","thinking":"t","thinkingSignature":"Eq1"}]},{"role":"compactionSummary","timestamp":2000}]`,
	}, CompactionStaleSignatures())
}

func FuzzInvalidSignatures(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":"  "}]},{"role":"user","content":"r"},{"role":"assistant","content":[{"type":"thinking","thinking":"b","signature":"Eq"},{"type":"text","text":"ok"}]}]`,
		`[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"b"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":[]}]`,
	}, InvalidSignatures())
}

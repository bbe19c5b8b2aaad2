package turns

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
)

// TestForeignThinkingIsNotReplayedSigned: a target that verifies thinking
// signatures never receives thinking another provider signed (issue 20: a
// GPT-5 turn's reasoning item reached Anthropic as a thinking block whose
// "signature" was the reasoning JSON). The turn's own Anthropic thinking
// stays; the foreign thinking goes, the latest turn's too.
func TestForeignThinkingIsNotReplayedSigned(t *testing.T) {
	const (
		gptThinking = `{"type":"thinking","thinking":"**Checking the logs**","thinkingSignature":"{\"id\":\"rs_31b565790317dc8a4a102f546b449359e623404b9b080e0a9f\",\"type\":\"reasoning\",\"encrypted_content\":\"gAAAAABpKzX1\",\"summary\":[]}"}`
		claude      = `{"type":"thinking","thinking":"Reading the file.","thinkingSignature":"EpMCCkYIBxgCKkDx7TtXb3Jh0pQKqWm2ZlV9yGgQ"}`
		gptMeta     = `"api":"openai-responses","provider":"openai","model":"gpt-5"`
		claudeMeta  = `"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6"`
	)
	in := `[{"role":"user","content":"q"},` +
		`{"role":"assistant","content":[` + claude + `,{"type":"text","text":"a"}],` + claudeMeta + `},` +
		`{"role":"user","content":"again"},` +
		`{"role":"assistant","content":[` + gptThinking + `,{"type":"text","text":"b"}],` + gptMeta + `},` +
		`{"role":"user","content":"and now?"},` +
		`{"role":"assistant","content":[` + gptThinking + `],` + gptMeta + `}]`
	runCases(t, []ruleCase{
		{
			name: "anthropic target",
			in:   in,
			want: `[{"role":"user","content":"q"},` +
				`{"role":"assistant","content":[` + claude + `,{"type":"text","text":"a"}],` + claudeMeta + `},` +
				`{"role":"user","content":"again"},` +
				`{"role":"assistant","content":[{"type":"text","text":"b"}],` + gptMeta + `},` +
				`{"role":"user","content":"and now?"},` +
				`{"role":"assistant","content":[{"type":"text","text":"[assistant reasoning omitted]"}],` + gptMeta + `}]`,
			report: map[string]int{"foreign_dropped": 2},
		},
		{name: "a target that verifies nothing keeps it", c: stagetest.Case{Target: openaiTarget}, in: in, want: in},
	}, InvalidSignatures())
}

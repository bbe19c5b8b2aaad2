package stages

import (
	"maps"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// TestResponsesCompactionItem: a Responses body that starts with the
// compaction item of responses/compact (OpenAI's encrypted summary of the
// earlier turns) keeps it, whole and first, for a Responses target; for
// another format, which cannot read it, it is dropped and counted as
// compaction, not as a server tool. Issue 29 item 7: on 0988e1e it was
// counted as server_tool and dropped for Responses too.
func TestResponsesCompactionItem(t *testing.T) {
	item := `{"type":"compaction","id":"cmp_68f9a1c2e3d4b5a60190e7c4d2b1a0f9e8d7c6b5a4938271","encrypted_content":"gAAAAABo-compacted-summary-of-the-earlier-turns-9xKq2Lm7Pw4Rt8Yz1Nc3Hv6Bd0Fj5Gs=="}`
	body := `{"model":"gpt-5","input":[` + item + `,` +
		`{"role":"user","content":[{"type":"input_text","text":"Go on with the migration."}]},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Migrating the last two tables."}]},` +
		`{"role":"user","content":[{"type":"input_text","text":"Thanks."}]}]}`
	src := formatTargets[wire.OpenAIResponses]
	for _, c := range []struct {
		tg      transcript.Target
		kept    bool
		dropped map[string]int
	}{
		{src, true, map[string]int{}},
		{formatTargets[wire.AnthropicMessages], false, map[string]int{wire.LossCompaction: 1}},
		{formatTargets[wire.GeminiContents], false, map[string]int{wire.LossCompaction: 1}},
	} {
		parsed, err := wire.Parse(wire.OpenAIResponses, []byte(body), src, wire.FormatFor(policy.Resolve(c.tg)))
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(parsed.Dropped, c.dropped) {
			t.Errorf("%s: dropped %v, want %v", c.tg.API, parsed.Dropped, c.dropped)
		}
		out, _, rej := sanitizeBody(t, wire.OpenAIResponses, []byte(body), src, c.tg)
		if rej != nil {
			t.Fatalf("%s: refused: %v", c.tg.API, rej)
		}
		if got := strings.Contains(string(out), `"input":[`+item); got != c.kept {
			t.Errorf("%s: compaction item first in the body: %v, want %v\n%s", c.tg.API, got, c.kept, out)
		}
		if !strings.Contains(string(out), "Migrating the last two tables.") {
			t.Errorf("%s: the history after the compaction is lost\n%s", c.tg.API, out)
		}
	}
}

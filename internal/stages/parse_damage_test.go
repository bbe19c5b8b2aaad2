package stages

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// TestRequestDamageRepaired: each damaged request example (one per input
// format: examples/from-*-damaged.json) holds the spec's failure classes
// written in its format, and each is repaired: unpaired calls get a
// synthetic result and orphan results are dropped, lone surrogates are
// replaced, bad ids are rewritten, broken alternation is merged (or
// bootstrapped for Gemini), a mislabelled image is relabelled; the result
// passes the target's contract.
func TestRequestDamageRepaired(t *testing.T) {
	pairing := map[string]int{"orphan": 1, "synthetic": 1}
	want := map[string]map[string]map[string]int{
		"from-anthropic-damaged": {"tool_result_pairing": pairing, "text_repair": {"repaired": 1},
			"images": {"mime_fixed": 1}, "tool_call_ids": {"calls_rewritten": 1}, "anthropic_turns": {"merged": 1}},
		"from-bedrock-damaged": {"tool_result_pairing": pairing, "text_repair": {"repaired": 1},
			"images": {"mime_fixed": 1}, "tool_call_ids_early": {"calls_rewritten": 2}, "anthropic_turns": {"merged": 1}},
		"from-gemini-damaged": {"tool_result_pairing": pairing, "text_repair": {"repaired": 1},
			"images": {"mime_fixed": 1}, "tool_call_ids_early": {"calls_rewritten": 2}, "gemini_turns": {"merged": 1}, "google_bootstrap": {"prepended": 1}},
		"from-mistral-damaged": {"tool_result_pairing": pairing, "text_repair": {"repaired": 1},
			"tool_call_ids_early": {"calls_rewritten": 1}},
		"from-openai-chat-damaged": {"tool_result_pairing": pairing, "text_repair": {"repaired": 1},
			"images": {"mime_fixed": 1}},
		"from-openai-responses-damaged": {"responses_pairing": pairing, "text_repair": {"repaired": 1},
			"images": {"mime_fixed": 1}},
	}
	for name, stages := range want {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "..", "examples", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var job struct {
				Target  transcript.Target `json:"target"`
				Format  string            `json:"request_format"`
				Request json.RawMessage   `json:"request"`
				Options struct {
					Source string `json:"source"`
				} `json:"options"`
			}
			if err := json.Unmarshal(raw, &job); err != nil {
				t.Fatal(err)
			}
			f, _ := wire.ParseFormat(job.Format)
			src, err := policy.ParseTarget(job.Options.Source)
			if err != nil {
				t.Fatal(err)
			}
			body, report, rej := sanitizeBody(t, f, job.Request, src, job.Target)
			if rej != nil {
				t.Fatalf("refused: %v", rej)
			}
			for stage, counts := range stages {
				for what, n := range counts {
					if got := report.Stages.Get(stage, what); got < n {
						t.Errorf("%s.%s = %d, want at least %d (report %v)", stage, what, got, n, report.Stages)
					}
				}
			}
			if f == wire.MistralChat && !strings.Contains(string(body), "Tool results received.") {
				t.Errorf("no assistant turn between the tool message and the user message: %s", body)
			}
		})
	}
}

package policy

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestStrictIDsFitEveryStrictTarget checks that the longest id strict mode can emit
// (40 alphanumerics, spec §3.6) is valid for every target that resolves to strict
// ids, the strict9 sample for every strict9 target, and an OpenAI duplicate-style
// id (§3.6 example) where that style is on.
func TestStrictIDsFitEveryStrictTarget(t *testing.T) {
	samples := map[IDMode]string{IDModeStrict: strings.Repeat("A1", 20), IDModeStrict9: "a4b42f05f"}
	for provider := range providerPlugins {
		for _, api := range []string{"", "openai-completions", "openai-responses", "anthropic-messages",
			"bedrock-converse-stream", "google-generative-ai", "google-gemini-cli", "custom"} {
			p := Resolve(transcript.Target{Provider: provider, API: api, Model: "claude-opus-4-6"})
			if sample, ok := samples[p.ToolCallIDMode]; ok && p.SanitizeToolCallIDs && !p.IDLimits.Valid(sample) {
				t.Errorf("%s/%s: %s id %q is not valid under %+v", provider, api, p.ToolCallIDMode, sample, p.IDLimits)
			}
			if dup := "call_6d7b2c96a6bbd6317aa25280"; p.DuplicateToolCallIDStyle == "openai" && !p.IDLimits.Valid(dup) {
				t.Errorf("%s/%s: openai duplicate-style id %q is not valid under %+v", provider, api, dup, p.IDLimits)
			}
		}
	}
}

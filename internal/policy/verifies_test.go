package policy

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestVerifiesThinkingOf: a turn is immutable only when the target verifies
// the signatures of the wire that wrote its thinking (issue 20).
func TestVerifiesThinkingOf(t *testing.T) {
	opus := Resolve(transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"})
	bedrock := Resolve(transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4-5"})
	gpt := Resolve(transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"})
	for _, tc := range []struct {
		name          string
		p             Policy
		provider, api string
		want          bool
	}{
		{"anthropic turn to anthropic", opus, "anthropic", "anthropic-messages", true},
		{"bedrock turn to anthropic", opus, "amazon-bedrock", "bedrock-converse-stream", true},
		{"openai reasoning to anthropic", opus, "openai", "openai-responses", false},
		{"codex reasoning to bedrock", bedrock, "openai-codex", "openai-codex-responses", false},
		{"gemini thoughts to bedrock", bedrock, "google", "google-generative-ai", false},
		{"provider only: openai", bedrock, "openai", "", false},
		{"provider only: anthropic", bedrock, " Anthropic ", "", true},
		{"no provenance: taken as the target's own", opus, "", "", true},
		{"a target that verifies nothing", gpt, "anthropic", "anthropic-messages", false},
	} {
		if got := tc.p.VerifiesThinkingOf(tc.provider, tc.api); got != tc.want {
			t.Errorf("%s: VerifiesThinkingOf(%q, %q) = %v, want %v", tc.name, tc.provider, tc.api, got, tc.want)
		}
	}
}

package policy

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestVerifiesThinkingOf: a turn is immutable only when the target verifies
// the signatures of the provider that wrote its thinking (issue 20): the
// same wire is not enough (MiniMax's Anthropic-compatible API does not hold
// Anthropic's key, nor Anthropic MiniMax's).
func TestVerifiesThinkingOf(t *testing.T) {
	opus := Resolve(transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"})
	bedrock := Resolve(transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4-5"})
	gpt := Resolve(transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"})
	gateway := Resolve(transcript.Target{Provider: "custom-claude", API: "anthropic-messages", Model: "claude-opus-4-6"})
	minimax := Resolve(transcript.Target{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2"})
	for _, tc := range []struct {
		name                 string
		p                    Policy
		provider, api, model string
		want                 bool
	}{
		{"anthropic turn to anthropic", opus, "anthropic", "anthropic-messages", "", true},
		{"bedrock turn to anthropic", opus, "amazon-bedrock", "bedrock-converse-stream", "", true},
		{"openai reasoning to anthropic", opus, "openai", "openai-responses", "", false},
		{"codex reasoning to bedrock", bedrock, "openai-codex", "openai-codex-responses", "", false},
		{"gemini thoughts to bedrock", bedrock, "google", "google-generative-ai", "", false},
		{"provider only: openai", bedrock, "openai", "", "", false},
		{"provider only: anthropic", bedrock, " Anthropic ", "", "", true},
		{"no provenance: taken as the target's own", opus, "", "", "", true},
		{"a target that verifies nothing", gpt, "anthropic", "anthropic-messages", "", false},
		{"minimax turn to minimax", minimax, "minimax", "anthropic-messages", "", true},
		{"claude turn to minimax's Anthropic wire", minimax, "anthropic", "anthropic-messages", "claude-sonnet-4-5", false},
		{"claude turn to a gateway serving claude", gateway, "anthropic", "anthropic-messages", "claude-sonnet-4-5", true},
		{"minimax turn to a gateway serving claude", gateway, "minimax", "anthropic-messages", "MiniMax-M2", false},
		{"minimax turn to anthropic, same wire", opus, "minimax", "anthropic-messages", "", false},
		{"no provider, an Anthropic wire api", minimax, "", "anthropic-messages", "", true},
		{"no provider, another wire", opus, "", "openai-responses", "", false},
	} {
		if got := tc.p.VerifiesThinkingOf(tc.provider, tc.api, tc.model); got != tc.want {
			t.Errorf("%s: VerifiesThinkingOf(%q, %q, %q) = %v, want %v", tc.name, tc.provider, tc.api, tc.model, got, tc.want)
		}
	}
}

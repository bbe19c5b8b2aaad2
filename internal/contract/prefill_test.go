package contract

import "testing"

// TestPrefillOf: the prefill rule per family and Claude version, over the
// model ids each API uses.
func TestPrefillOf(t *testing.T) {
	cases := []struct {
		f     Family
		model string
		want  Prefill
		trim  bool
	}{
		{AnthropicMessages, "claude-opus-4-6", PrefillRefused, false},
		{AnthropicMessages, "claude-sonnet-4-6", PrefillRefused, false},
		{AnthropicMessages, "claude-opus-4-7", PrefillRefused, false},
		{AnthropicMessages, "claude-sonnet-5", PrefillRefused, false},
		{AnthropicMessages, "claude-sonnet-4-5-20250929", PrefillAccepted, true},
		{AnthropicMessages, "claude-opus-4-20250514", PrefillAccepted, true},
		{AnthropicMessages, "claude-3-7-sonnet-20250219", PrefillAccepted, true},
		{AnthropicMessages, "claude-haiku-4-5", PrefillAccepted, true},
		{AnthropicCloud, "claude-opus-4-6@20260205", PrefillRefused, false},
		{AnthropicCloud, "claude-sonnet-4@20250514", PrefillAccepted, true},
		{BedrockConverse, "us.anthropic.claude-opus-4-6-v1", PrefillRefused, false},
		{BedrockConverse, "anthropic.claude-sonnet-4-6-v1:0", PrefillRefused, false},
		{BedrockConverse, "anthropic.claude-3-5-sonnet-20241022-v2:0", PrefillAccepted, true},
		{BedrockConverse, "amazon.nova-pro-v1:0", PrefillAccepted, false},
		{AnthropicCompatible, "MiniMax-M2", PrefillAccepted, true},
		{Mistral, "mistral-large-latest", PrefillFlagged, false},
		{OpenAIChat, "gpt-4.1", PrefillAccepted, false},
		{OpenAICompatible, "anthropic/claude-opus-4-6", PrefillRefused, false},
		{OpenAICompatible, "claude-sonnet-4", PrefillAccepted, false},
		{Gemini, "gemini-2.5-pro", PrefillAccepted, false},
		{Passthrough, "acme-1", PrefillAccepted, false},
	}
	for _, tc := range cases {
		got := PrefillOf(tc.f, tc.model)
		if got.Prefill != tc.want || got.TrimTrailingSpace != tc.trim || got.Rule == "" {
			t.Errorf("PrefillOf(%s, %q) = %+v, want prefill %d, trim %v", tc.f, tc.model, got, tc.want, tc.trim)
		}
	}
}

package policy

import (
	"strings"
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

// TestTurnVerifier: a verifier walked over a history's turns gives each
// turn VerifiesTurn's verdict, when only the provider, only the api or only
// the model changes from one turn to the next, and when a turn goes back
// to an earlier one's.
func TestTurnVerifier(t *testing.T) {
	turns := []string{
		`{"role":"assistant","provider":"anthropic","api":"anthropic-messages","model":"claude-sonnet-4-5"}`,
		`{"role":"assistant","provider":"anthropic","api":"anthropic-messages","model":"claude-sonnet-4-5"}`,
		`{"role":"assistant","provider":"openrouter","api":"anthropic-messages","model":"anthropic/claude-sonnet-4.5"}`,
		`{"role":"assistant","provider":"openrouter","api":"anthropic-messages","model":"openai/gpt-5"}`,
		`{"role":"assistant","provider":"openrouter","api":"anthropic-messages","model":"anthropic/claude-sonnet-4.5"}`,
		`{"role":"assistant","api":"anthropic-messages"}`,
		`{"role":"assistant","api":"openai-responses"}`,
		`{"role":"assistant"}`,
		`{"role":"assistant","provider":"anthropic","api":"anthropic-messages","model":"MiniMax-M2"}`,
		`{"role":"assistant","provider":"minimax","api":"anthropic-messages","model":"MiniMax-M2"}`,
		`{"role":"assistant","provider":"\u006dinimax","api":"anthropic-messages","model":"MiniMax-M2"}`,
		`{"role":"assistant","provider":"anthropic","api":"anthropic-messages","model":"claude-sonnet-4-5"}`,
	}
	job := `{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"messages":[` + strings.Join(turns, ",") + `]}`
	tr, err := transcript.DecodeJob([]byte(job), transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := tr.Messages
	for _, target := range []transcript.Target{
		{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"},
		{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2"},
		{Provider: "openrouter", API: "anthropic-messages", Model: "anthropic/claude-opus-4.6"},
		{Provider: "openai", API: "openai-responses", Model: "gpt-5"},
	} {
		p := Resolve(target)
		v := p.TurnVerifier()
		changes := 0
		for i, m := range msgs {
			want := p.VerifiesTurn(m)
			if got := v.Verifies(m); got != want {
				t.Errorf("%s, turn %d %s: Verifies %v, VerifiesTurn %v", target.Provider, i, turns[i], got, want)
			}
			if i > 0 && want != p.VerifiesTurn(msgs[i-1]) {
				changes++
			}
		}
		if p.AllowProviderOwnedThinkingReplay() && changes < 3 {
			t.Errorf("%s: the verdict changes %d times along the turns, so the walk does not test the verifier", target.Provider, changes)
		}
	}
}

package policy

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

func TestPredicates(t *testing.T) {
	tests := []struct {
		name                                        string
		p                                           Policy
		ownedReplay, signed, responses, google, ant bool
	}{
		{"resolved anthropic", Resolve(transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}),
			true, true, false, false, true},
		{"resolved old claude drops thinking, so no owned replay", Resolve(transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-3-7-sonnet"}),
			false, true, false, false, true},
		{"resolved bedrock", Resolve(transcript.Target{Provider: "bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4-5"}),
			true, true, false, false, true},
		{"resolved vertex without api: not an Anthropic wire api", Resolve(transcript.Target{Provider: "anthropic-vertex", API: "", Model: "claude-opus-4-6"}),
			false, true, false, false, true},
		{"resolved minimax on anthropic-messages: preserveSignatures carries it", Resolve(transcript.Target{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2"}),
			true, false, false, false, true},
		{"resolved kimi-coding on anthropic-messages: no turn validation", Resolve(transcript.Target{Provider: "kimi-coding", API: "anthropic-messages", Model: "k2"}),
			false, false, false, false, true},
		{"newer form: signed provider without preserveSignatures",
			Policy{Provider: "anthropic", API: "anthropic-messages", ValidateAnthropicTurns: true},
			true, true, false, false, true},
		{"no signatures and not a signed provider",
			Policy{Provider: "acme", API: "anthropic-messages", ValidateAnthropicTurns: true},
			false, false, false, false, true},
		{"openai responses", Resolve(transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}),
			false, false, true, false, false},
		{"chatgpt responses", Resolve(transcript.Target{Provider: "openai-codex", API: "openai-chatgpt-responses", Model: "gpt-5"}),
			false, false, true, false, false},
		{"codex responses", Resolve(transcript.Target{Provider: "", API: "openai-codex-responses", Model: "gpt-5"}),
			false, false, true, false, false},
		{"azure responses", Resolve(transcript.Target{Provider: "azure", API: "azure-openai-responses", Model: "gpt-5"}),
			false, false, true, false, false},
		{"google provider", Resolve(transcript.Target{Provider: "google", API: "", Model: "gemini-2.5-pro"}),
			false, false, false, true, false},
		{"google-gemini-cli provider", Resolve(transcript.Target{Provider: "google-gemini-cli", API: "", Model: "gemini-2.5-pro"}),
			false, false, false, true, false},
		{"google-vertex api", Resolve(transcript.Target{Provider: "acme", API: "google-vertex", Model: "gemini-2.5-pro"}),
			false, false, false, true, false},
		{"openai completions", Resolve(transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}),
			false, false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			if got := p.AllowProviderOwnedThinkingReplay(); got != tt.ownedReplay {
				t.Errorf("AllowProviderOwnedThinkingReplay() = %v, want %v", got, tt.ownedReplay)
			}
			if got := p.SignedThinkingProvider(); got != tt.signed {
				t.Errorf("SignedThinkingProvider() = %v, want %v", got, tt.signed)
			}
			if got := p.IsResponsesAPI(); got != tt.responses {
				t.Errorf("IsResponsesAPI() = %v, want %v", got, tt.responses)
			}
			if got := p.IsGoogleFamily(); got != tt.google {
				t.Errorf("IsGoogleFamily() = %v, want %v", got, tt.google)
			}
			if got := p.IsAnthropicFamily(); got != tt.ant {
				t.Errorf("IsAnthropicFamily() = %v, want %v", got, tt.ant)
			}
		})
	}
}

func TestNormalizeProvider(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  ", ""},
		{"Anthropic", "anthropic"},
		{" OPENAI ", "openai"},
		{"bedrock", "amazon-bedrock"},
		{"AWS-Bedrock", "amazon-bedrock"},
		{"amazon-bedrock", "amazon-bedrock"},
		{"z.ai", "zai"},
		{"z-ai", "zai"},
		{"opencode-zen", "opencode"},
		{"opencode-go-auth", "opencode-go"},
		{"MoonshotAI", "moonshot"},
		{"moonshot-ai", "moonshot"},
		{"kimi", "kimi-coding"},
		{"kimi-code", "kimi-coding"},
		{"kimi-coding", "kimi-coding"},
		{"gemini", "gemini"}, // no gemini → google alias: neither spec nor seeds give it
		{"vllm", "vllm"},
	}
	for _, tt := range tests {
		if got := NormalizeProvider(tt.in); got != tt.want {
			t.Errorf("NormalizeProvider(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClaudePreservesThinking(t *testing.T) {
	tests := []struct {
		model string
		want  bool
	}{
		{"claude-opus-4-6", true},
		{"claude-sonnet-4-5-20250929", true},
		{"claude-haiku-4-5", true},
		{"anthropic.claude-opus-4-1-20250805-v1:0", true},
		{"Claude-Sonnet-4", true},
		{"claude-5", true},
		{"claude-9-foo", true},
		{"claude-10", true},
		{"claude-3-7-sonnet", false},
		{"claude-3-5-sonnet-20241022", false},
		{"claude-3-opus", false},
		{"claude-4", false},          // one digit below 5 and no family-4 marker
		{"claude-", false},           // nothing after the dash
		{"claude-2.1", false},        // digit then a dot, not two digits
		{"opus-4", false},            // must contain claude
		{"gemini-2.5-pro", false},    // not claude
		{"claude-x-claude-7", true},  // a later claude- occurrence counts
		{"my-claude-3-haiku", false}, // haiku-3 is not haiku-4
	}
	for _, tt := range tests {
		if got := ClaudePreservesThinking(tt.model); got != tt.want {
			t.Errorf("ClaudePreservesThinking(%q) = %v, want %v", tt.model, got, tt.want)
		}
	}
}

// TestResolveReturnsIndependentCopies checks that a caller who writes through the
// options pointer of one resolved policy cannot change the next one.
func TestResolveReturnsIndependentCopies(t *testing.T) {
	target := transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"}
	first := Resolve(target)
	first.SanitizeThoughtSignatures.AllowBase64Only = false
	if second := Resolve(target); !second.SanitizeThoughtSignatures.AllowBase64Only {
		t.Fatal("a write through one policy's SanitizeThoughtSignatures changed the next Resolve result")
	}
}

func BenchmarkResolve(b *testing.B) {
	targets := []transcript.Target{
		{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"},
		{Provider: "vllm", API: "openai-completions", Model: "mistralai/Mistral-Small-3.2"},
		{Provider: "openrouter", API: "openai-completions", Model: "google/gemini-2.5-pro"},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = Resolve(targets[i%len(targets)])
	}
}

package policy

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// The id limits of the contract rows, as the wants below name them.
var (
	anthropicLimits       = contract.Of(contract.AnthropicMessages).ToolCallIDs
	bedrockLimits         = contract.Of(contract.BedrockConverse).ToolCallIDs
	chatCompletionsLimits = contract.Of(contract.OpenAIChat).ToolCallIDs
	responsesLimits       = contract.Of(contract.OpenAIResponses).ToolCallIDs
	mistralLimits         = contract.Of(contract.Mistral).ToolCallIDs
	googleLimits          = contract.Of(contract.Gemini).ToolCallIDs
)

// TestFamily pins the contract family of each kind of target.
func TestFamily(t *testing.T) {
	tests := []struct {
		target transcript.Target
		want   contract.Family
	}{
		{transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}, contract.AnthropicMessages},
		{transcript.Target{Provider: "anthropic", API: "", Model: "claude-opus-4-6"}, contract.AnthropicMessages},
		{transcript.Target{Provider: "custom-claude", API: "anthropic-messages", Model: "claude-opus-4-6"}, contract.AnthropicMessages},
		{transcript.Target{Provider: "anthropic-vertex", API: "anthropic-messages", Model: "claude-sonnet-4"}, contract.AnthropicCloud},
		{transcript.Target{Provider: "bedrock", API: "anthropic-messages", Model: "anthropic.claude-sonnet-4"}, contract.AnthropicCloud},
		{transcript.Target{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2"}, contract.AnthropicCompatible},
		{transcript.Target{Provider: "kimi-coding", API: "anthropic-messages", Model: "k2"}, contract.AnthropicCompatible},
		{transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-7-sonnet"}, contract.BedrockConverse},
		{transcript.Target{Provider: "my-proxy", API: "bedrock-converse-stream", Model: "claude-3-5-sonnet"}, contract.BedrockConverse},
		{transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}, contract.OpenAIChat},
		{transcript.Target{Provider: "azure-openai", API: "openai-completions", Model: "gpt-4.1"}, contract.OpenAIChat},
		{transcript.Target{Provider: "openrouter", API: "openai-completions", Model: "anthropic/claude-sonnet-4"}, contract.OpenAICompatible},
		{transcript.Target{Provider: "vllm", API: "openai-completions", Model: "gemma-3"}, contract.OpenAICompatible},
		{transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}, contract.OpenAIResponses},
		{transcript.Target{Provider: "azure-openai", API: "azure-openai-responses", Model: "gpt-5"}, contract.OpenAIResponses},
		{transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"}, contract.Gemini},
		{transcript.Target{Provider: "acme", API: "google-vertex", Model: "gemini-2.5-pro"}, contract.Gemini},
		{transcript.Target{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"}, contract.Mistral},
		{transcript.Target{Provider: "together", API: "openai-completions", Model: "mistralai/Mixtral-8x7B"}, contract.Mistral},
		{transcript.Target{Provider: "acme-llm", API: "acme-chat", Model: "acme-1"}, contract.Passthrough},
	}
	for _, tt := range tests {
		if got := Resolve(tt.target).Contract.Family; got != tt.want {
			t.Errorf("Resolve(%+v).Contract.Family = %s, want %s", tt.target, got, tt.want)
		}
	}
}

var thought = &ThoughtSignatureOptions{AllowBase64Only: true, IncludeCamelCase: true}

// TestResolve has one case per row of the provider table (§2.2), the transport
// fallback (§2.3) and the Mistral detection (§2.4). Each want is a whole Policy,
// so every field is asserted: a field left out of a literal must be zero.
func TestResolve(t *testing.T) {
	tests := []struct {
		name   string
		target transcript.Target
		want   Policy
	}{
		// §2.2 openai / openai-codex
		{"openai completions: strict ids", transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}, Policy{
			Provider: "openai", API: "openai-completions", Model: "gpt-4.1",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, IDLimits: chatCompletionsLimits,
		}},
		{"openai responses: ids off", transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}, Policy{
			Provider: "openai", API: "openai-responses", Model: "gpt-5",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, IDLimits: responsesLimits,
		}},
		{"openai-codex codex responses: ids off", transcript.Target{Provider: "openai-codex", API: "openai-codex-responses", Model: "gpt-5-codex"}, Policy{
			Provider: "openai-codex", API: "openai-codex-responses", Model: "gpt-5-codex",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, IDLimits: responsesLimits,
		}},
		{"openai-codex renamed chatgpt responses: ids off", transcript.Target{Provider: "OpenAI-Codex", API: "openai-chatgpt-responses", Model: "gpt-5"}, Policy{
			Provider: "openai-codex", API: "openai-chatgpt-responses", Model: "gpt-5",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, IDLimits: responsesLimits,
		}},
		// §2.2 anthropic / anthropic-vertex
		{"anthropic claude 4: thinking kept", transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}, Policy{
			Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			PreserveNativeAnthropicToolUseIDs: true, RepairToolUseResultPairing: true, PreserveSignatures: true,
			ValidateAnthropicTurns: true, AllowSyntheticToolResults: true, IDLimits: anthropicLimits,
		}},
		{"anthropic claude 3.7: thinking dropped", transcript.Target{Provider: " Anthropic ", API: " anthropic-messages ", Model: " claude-3-7-sonnet-latest "}, Policy{
			Provider: "anthropic", API: "anthropic-messages", Model: "claude-3-7-sonnet-latest",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			PreserveNativeAnthropicToolUseIDs: true, RepairToolUseResultPairing: true, PreserveSignatures: true,
			DropThinkingBlocks: true, ValidateAnthropicTurns: true, AllowSyntheticToolResults: true,
			IDLimits: anthropicLimits,
		}},
		{"anthropic-vertex without api", transcript.Target{Provider: "anthropic-vertex", API: "", Model: "claude-sonnet-4-5@20250929"}, Policy{
			Provider: "anthropic-vertex", Model: "claude-sonnet-4-5@20250929",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			PreserveNativeAnthropicToolUseIDs: true, RepairToolUseResultPairing: true, PreserveSignatures: true,
			ValidateAnthropicTurns: true, AllowSyntheticToolResults: true, IDLimits: anthropicLimits,
		}},
		// §2.2 amazon-bedrock
		{"bedrock claude 3.5: no native ids, thinking dropped", transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-5-sonnet-20241022-v2:0"}, Policy{
			Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-5-sonnet-20241022-v2:0",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, PreserveSignatures: true, DropThinkingBlocks: true,
			ValidateAnthropicTurns: true, AllowSyntheticToolResults: true, IDLimits: bedrockLimits,
		}},
		{"bedrock alias, non-claude model", transcript.Target{Provider: "aws-bedrock", API: "bedrock-converse-stream", Model: "amazon.nova-pro-v1:0"}, Policy{
			Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "amazon.nova-pro-v1:0",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, PreserveSignatures: true,
			ValidateAnthropicTurns: true, AllowSyntheticToolResults: true, IDLimits: bedrockLimits,
		}},
		// §2.2 google / google-gemini-cli
		{"google", transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"}, Policy{
			Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, SanitizeThoughtSignatures: thought,
			ApplyGoogleTurnOrdering: true, ValidateGeminiTurns: true, AllowSyntheticToolResults: true,
			IDLimits: googleLimits,
		}},
		{"google-gemini-cli", transcript.Target{Provider: "google-gemini-cli", API: "google-gemini-cli", Model: "gemini-3-pro-preview"}, Policy{
			Provider: "google-gemini-cli", API: "google-gemini-cli", Model: "gemini-3-pro-preview",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, SanitizeThoughtSignatures: thought,
			ApplyGoogleTurnOrdering: true, ValidateGeminiTurns: true, AllowSyntheticToolResults: true,
			IDLimits: googleLimits,
		}},
		// §2.2 mistral
		{"mistral: strict9", transcript.Target{Provider: "mistral", API: "openai-completions", Model: "mistral-large-latest"}, Policy{
			Provider: "mistral", API: "openai-completions", Model: "mistral-large-latest",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict9,
			RepairToolUseResultPairing: true, IDLimits: mistralLimits,
		}},
		// §2.2 passthrough: openrouter, opencode, opencode-go, kilocode
		{"openrouter gemini: thought signatures", transcript.Target{Provider: "openrouter", API: "openai-completions", Model: "google/Gemini-2.5-Pro"}, Policy{
			Provider: "openrouter", API: "openai-completions", Model: "google/Gemini-2.5-Pro",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, SanitizeThoughtSignatures: thought,
			IDLimits: chatCompletionsLimits,
		}},
		{"openrouter other model: passthrough", transcript.Target{Provider: "openrouter", API: "openai-completions", Model: "anthropic/claude-sonnet-4"}, Policy{
			Provider: "openrouter", API: "openai-completions", Model: "anthropic/claude-sonnet-4",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, IDLimits: chatCompletionsLimits,
		}},
		{"opencode alias gemini", transcript.Target{Provider: "opencode-zen", API: "openai-completions", Model: "gemini-3-pro"}, Policy{
			Provider: "opencode", API: "openai-completions", Model: "gemini-3-pro",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, SanitizeThoughtSignatures: thought,
			IDLimits: chatCompletionsLimits,
		}},
		{"opencode-go passthrough", transcript.Target{Provider: "opencode-go", API: "openai-completions", Model: "glm-4.6"}, Policy{
			Provider: "opencode-go", API: "openai-completions", Model: "glm-4.6",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, IDLimits: chatCompletionsLimits,
		}},
		{"kilocode gemini", transcript.Target{Provider: "kilocode", API: "openai-completions", Model: "google/gemini-2.5-flash"}, Policy{
			Provider: "kilocode", API: "openai-completions", Model: "google/gemini-2.5-flash",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, SanitizeThoughtSignatures: thought,
			IDLimits: chatCompletionsLimits,
		}},
		// §2.2 github-copilot
		{"copilot claude: drop thinking", transcript.Target{Provider: "github-copilot", API: "openai-completions", Model: "claude-sonnet-4"}, Policy{
			Provider: "github-copilot", API: "openai-completions", Model: "claude-sonnet-4",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, DropThinkingBlocks: true,
			IDLimits: chatCompletionsLimits,
		}},
		{"copilot other model: defaults", transcript.Target{Provider: "github-copilot", API: "openai-responses", Model: "gpt-5"}, Policy{
			Provider: "github-copilot", API: "openai-responses", Model: "gpt-5",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, IDLimits: responsesLimits,
		}},
		// §2.2 minimax (hybrid)
		{"minimax anthropic api: strict anthropic", transcript.Target{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2"}, Policy{
			Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, PreserveSignatures: true,
			ValidateAnthropicTurns: true, AllowSyntheticToolResults: true, IDLimits: anthropicLimits,
		}},
		{"minimax other api: OpenAI-compatible row", transcript.Target{Provider: "minimax", API: "openai-completions", Model: "MiniMax-M2"}, Policy{
			Provider: "minimax", API: "openai-completions", Model: "MiniMax-M2",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, ApplyGoogleTurnOrdering: true, ValidateGeminiTurns: true,
			ValidateAnthropicTurns: true, IDLimits: chatCompletionsLimits,
		}},
		// §2.2 kimi-coding
		{"kimi-coding: defaults", transcript.Target{Provider: "kimi-code", API: "anthropic-messages", Model: "kimi-for-coding"}, Policy{
			Provider: "kimi-coding", API: "anthropic-messages", Model: "kimi-for-coding",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, IDLimits: anthropicLimits,
		}},
		// §2.2 OpenAI-compatible family
		{"family completions: strict alternation", transcript.Target{Provider: "xai", API: "openai-completions", Model: "grok-4"}, Policy{
			Provider: "xai", API: "openai-completions", Model: "grok-4",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, ApplyGoogleTurnOrdering: true, ValidateGeminiTurns: true,
			ValidateAnthropicTurns: true, IDLimits: chatCompletionsLimits,
		}},
		{"family responses: strict ids", transcript.Target{Provider: "fireworks", API: "azure-openai-responses", Model: "gpt-oss-120b"}, Policy{
			Provider: "fireworks", API: "azure-openai-responses", Model: "gpt-oss-120b",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, AllowSyntheticToolResults: true, IDLimits: responsesLimits,
		}},
		{"family other api: defaults", transcript.Target{Provider: "ollama", API: "ollama", Model: "llama3.3"}, Policy{
			Provider: "ollama", API: "ollama", Model: "llama3.3",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true,
		}},
		{"family alias z.ai", transcript.Target{Provider: "Z.AI", API: "openai-completions", Model: "glm-4.6"}, Policy{
			Provider: "zai", API: "openai-completions", Model: "glm-4.6",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, ApplyGoogleTurnOrdering: true, ValidateGeminiTurns: true,
			ValidateAnthropicTurns: true, IDLimits: chatCompletionsLimits,
		}},
		{"family arcee responses", transcript.Target{Provider: "arcee", API: "openai-responses", Model: "trinity"}, Policy{
			Provider: "arcee", API: "openai-responses", Model: "trinity",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, AllowSyntheticToolResults: true, IDLimits: responsesLimits,
		}},
		{"moonshot completions: openai duplicate style (newer)", transcript.Target{Provider: "moonshotai", API: "openai-completions", Model: "kimi-k2.6"}, Policy{
			Provider: "moonshot", API: "openai-completions", Model: "kimi-k2.6",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			DuplicateToolCallIDStyle: "openai", RepairToolUseResultPairing: true,
			ApplyGoogleTurnOrdering: true, ValidateGeminiTurns: true, ValidateAnthropicTurns: true,
			IDLimits: chatCompletionsLimits,
		}},
		{"moonshot responses: ids off (newer)", transcript.Target{Provider: "moonshot", API: "openai-responses", Model: "kimi-k2.6"}, Policy{
			Provider: "moonshot", API: "openai-responses", Model: "kimi-k2.6",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, AllowSyntheticToolResults: true,
			IDLimits: responsesLimits,
		}},
		// §2.3 transport fallback
		{"fallback google-generative-ai", transcript.Target{Provider: "my-gemini-proxy", API: "google-generative-ai", Model: "gemini-2.5-flash"}, Policy{
			Provider: "my-gemini-proxy", API: "google-generative-ai", Model: "gemini-2.5-flash",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, SanitizeThoughtSignatures: thought,
			ApplyGoogleTurnOrdering: true, ValidateGeminiTurns: true, AllowSyntheticToolResults: true,
			IDLimits: googleLimits,
		}},
		{"fallback google-gemini-cli", transcript.Target{Provider: "corp", API: "google-gemini-cli", Model: "gemini-2.5-pro"}, Policy{
			Provider: "corp", API: "google-gemini-cli", Model: "gemini-2.5-pro",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, SanitizeThoughtSignatures: thought,
			ApplyGoogleTurnOrdering: true, ValidateGeminiTurns: true, AllowSyntheticToolResults: true,
			IDLimits: googleLimits,
		}},
		{"fallback anthropic-messages old claude", transcript.Target{Provider: "cloudflare-ai-gateway", API: "anthropic-messages", Model: "claude-3-5-haiku-latest"}, Policy{
			Provider: "cloudflare-ai-gateway", API: "anthropic-messages", Model: "claude-3-5-haiku-latest",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, PreserveSignatures: true, DropThinkingBlocks: true,
			ValidateAnthropicTurns: true, AllowSyntheticToolResults: true, IDLimits: anthropicLimits,
		}},
		{"fallback bedrock-converse-stream claude 4", transcript.Target{Provider: "corp-bedrock", API: "bedrock-converse-stream", Model: "us.anthropic.claude-opus-4-1-v1:0"}, Policy{
			Provider: "corp-bedrock", API: "bedrock-converse-stream", Model: "us.anthropic.claude-opus-4-1-v1:0",
			SanitizeMode: ModeFull, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, PreserveSignatures: true,
			ValidateAnthropicTurns: true, AllowSyntheticToolResults: true, IDLimits: bedrockLimits,
		}},
		{"fallback openai-completions (V30)", transcript.Target{Provider: "vllm", API: "openai-completions", Model: "meta-llama/Llama-3.3-70B-Instruct"}, Policy{
			Provider: "vllm", API: "openai-completions", Model: "meta-llama/Llama-3.3-70B-Instruct",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, ApplyGoogleTurnOrdering: true, ValidateGeminiTurns: true,
			ValidateAnthropicTurns: true, IDLimits: chatCompletionsLimits,
		}},
		{"fallback responses family", transcript.Target{Provider: "azure-openai", API: "azure-openai-responses", Model: "gpt-4.1"}, Policy{
			Provider: "azure-openai", API: "azure-openai-responses", Model: "gpt-4.1",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, IDLimits: responsesLimits,
		}},
		{"fallback no provider, responses api", transcript.Target{Provider: "", API: "openai-responses", Model: "gpt-5"}, Policy{
			API: "openai-responses", Model: "gpt-5",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict,
			RepairToolUseResultPairing: true, IDLimits: responsesLimits,
		}},
		{"fallback unknown api: defaults", transcript.Target{Provider: "acme", API: "acme-chat", Model: "acme-1"}, Policy{
			Provider: "acme", API: "acme-chat", Model: "acme-1",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true,
		}},
		{"fallback google-vertex is not a fallback row", transcript.Target{Provider: "acme", API: "google-vertex", Model: "gemini-2.5-pro"}, Policy{
			Provider: "acme", API: "google-vertex", Model: "gemini-2.5-pro",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, IDLimits: googleLimits,
		}},
		{"invalid target: defaults", transcript.Target{Provider: " ", API: "", Model: "m"}, Policy{
			Model: "m", SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true,
		}},
		// §2.4 Mistral detection, for providers without a plugin
		{"detected mistral on openai-completions", transcript.Target{Provider: "together", API: "openai-completions", Model: "mistralai/Mixtral-8x7B-Instruct-v0.1"}, Policy{
			Provider: "together", API: "openai-completions", Model: "mistralai/Mixtral-8x7B-Instruct-v0.1",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict9,
			RepairToolUseResultPairing: true, ApplyGoogleTurnOrdering: true, ValidateGeminiTurns: true,
			ValidateAnthropicTurns: true, IDLimits: mistralLimits,
		}},
		{"detected mistral on unknown api", transcript.Target{Provider: "lmstudio", API: "lmstudio-chat", Model: "Codestral-22B"}, Policy{
			Provider: "lmstudio", API: "lmstudio-chat", Model: "Codestral-22B",
			SanitizeMode: ModeImagesOnly, SanitizeToolCallIDs: true, ToolCallIDMode: IDModeStrict9,
			RepairToolUseResultPairing: true, IDLimits: mistralLimits,
		}},
		{"no detection for a plugin provider", transcript.Target{Provider: "openrouter", API: "openai-completions", Model: "mistralai/devstral-medium"}, Policy{
			Provider: "openrouter", API: "openai-completions", Model: "mistralai/devstral-medium",
			SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true, IDLimits: chatCompletionsLimits,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resolve(tt.target)
			if got.Contract != contract.Of(got.Contract.Family) {
				t.Errorf("Resolve(%+v): contract %+v is not the table's row of %s", tt.target, got.Contract, got.Contract.Family)
			}
			got.Contract = contract.Contract{} // asserted by TestFamily
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Resolve(%+v)\n got %+v\nwant %+v", tt.target, describe(got), describe(tt.want))
			}
		})
	}
}

// describe prints a policy with its thought-signature options dereferenced.
func describe(p Policy) string {
	opts := "<nil>"
	if p.SanitizeThoughtSignatures != nil {
		opts = fmt.Sprintf("%+v", *p.SanitizeThoughtSignatures)
	}
	p.SanitizeThoughtSignatures = nil
	return fmt.Sprintf("%+v thought=%s", p, opts)
}

package policy

import "github.com/hygiene-dev/hygiene/internal/contract"

// familyFor picks the contract family of the wire a resolved policy targets.
// The first match wins: the Mistral id mode; Anthropic's Messages body on
// Vertex AI or Bedrock InvokeModel; Bedrock Converse (provider or API);
// Anthropic's own Messages API (provider anthropic, or a provider with no
// row of the table on that API, which gets the strict Anthropic policy);
// other Anthropic-compatible endpoints; Google; OpenAI's Chat Completions
// (openai, openai-codex, azure*) and the other Chat Completions passthroughs;
// the Responses family. Anything else is a passthrough.
//
// The tool-call id limits follow the family, as the id limits of the
// earlier per-wire table did, except that amazon-bedrock on
// anthropic-messages (InvokeModel) now gets the Anthropic body's id rule
// rather than Converse's 64-character limit.
func familyFor(p Policy) contract.Family {
	_, hasRow := providerPlugins[p.Provider]
	switch {
	case p.ToolCallIDMode == IDModeStrict9:
		return contract.Mistral
	case p.Provider == "anthropic-vertex", p.Provider == "amazon-bedrock" && p.API == apiAnthropicMessages:
		return contract.AnthropicCloud
	case p.Provider == "amazon-bedrock" || p.API == apiBedrockConverseStream:
		return contract.BedrockConverse
	case p.Provider == "anthropic", p.API == apiAnthropicMessages && !hasRow:
		return contract.AnthropicMessages
	case p.API == apiAnthropicMessages:
		return contract.AnthropicCompatible
	case p.IsGoogleFamily():
		return contract.Gemini
	case p.API == apiOpenAICompletions && isOpenAIOwned(p.Provider):
		return contract.OpenAIChat
	case p.API == apiOpenAICompletions:
		return contract.OpenAICompatible
	case p.IsResponsesAPI():
		return contract.OpenAIResponses
	}
	return contract.Passthrough
}

// isOpenAIOwned reports whether a normalised provider is OpenAI's own or
// Azure OpenAI's.
func isOpenAIOwned(provider string) bool {
	switch provider {
	case "openai", "openai-codex", "azure", "azure-openai":
		return true
	}
	return false
}

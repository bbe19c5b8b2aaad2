package policy

import "strings"

// providerAliases maps alternative spellings to the provider id the tables use.
//
// The spec (§2.1 step 1) names only bedrock → amazon-bedrock, and the seed documents
// name no aliases. The other entries are the aliases OpenClaw's normalizeProviderId
// (src/agents/provider-id.ts) applies to providers that own a row of the §2.2 table,
// so that a job spelled the way OpenClaw users spell it gets that row. Two choices
// differ from OpenClaw:
//   - OpenClaw's newest copy folds kimi, kimi-code and kimi-coding into "kimi"; the
//     spec's table row is named "kimi-coding", so they fold into "kimi-coding" here.
//   - gemini → google is not applied: neither the spec nor the seeds give it.
//
// Aliases of providers that own no row (qwen, volcengine, ...) are left out: they
// would not change the policy.
var providerAliases = map[string]string{
	"bedrock":          "amazon-bedrock",
	"aws-bedrock":      "amazon-bedrock",
	"z.ai":             "zai",
	"z-ai":             "zai",
	"opencode-zen":     "opencode",
	"opencode-go-auth": "opencode-go",
	"moonshotai":       "moonshot",
	"moonshot-ai":      "moonshot",
	"kimi":             "kimi-coding",
	"kimi-code":        "kimi-coding",
}

// NormalizeProvider lower-cases and trims a provider id and applies the aliases
// above. Unknown ids pass through (lower-cased and trimmed); "" stays "".
func NormalizeProvider(s string) string {
	p := strings.ToLower(strings.TrimSpace(s))
	if alias, ok := providerAliases[p]; ok {
		return alias
	}
	return p
}

// The model APIs the rules single out (spec §1.2).
const (
	apiOpenAICompletions      = "openai-completions"
	apiOpenAIResponses        = "openai-responses"
	apiOpenAICodexResponses   = "openai-codex-responses"
	apiOpenAIChatGPTResponses = "openai-chatgpt-responses" // newer name of openai-codex-responses
	apiAzureOpenAIResponses   = "azure-openai-responses"
	apiAnthropicMessages      = "anthropic-messages"
	apiBedrockConverseStream  = "bedrock-converse-stream"
	apiGoogleGenerativeAI     = "google-generative-ai"
	apiGoogleGeminiCLI        = "google-gemini-cli"
)

// isResponsesAPI reports whether api is in the OpenAI Responses family (spec §2.1).
func isResponsesAPI(api string) bool {
	switch api {
	case apiOpenAIResponses, apiOpenAICodexResponses, apiOpenAIChatGPTResponses, apiAzureOpenAIResponses:
		return true
	}
	return false
}

// isAnthropicWireAPI reports whether api speaks Anthropic Messages or Bedrock Converse.
func isAnthropicWireAPI(api string) bool {
	return api == apiAnthropicMessages || api == apiBedrockConverseStream
}

// isSignedThinkingProvider reports whether the normalised provider signs its
// thinking blocks (spec §2.1 signedThinkingProvider).
func isSignedThinkingProvider(provider string) bool {
	switch provider {
	case "anthropic", "amazon-bedrock", "anthropic-vertex":
		return true
	}
	return false
}

// mistralModelHints are the model-id substrings of the legacy Mistral detection (spec §2.4).
var mistralModelHints = []string{"mistral", "mixtral", "codestral", "pixtral", "devstral", "ministral", "mistralai"}

// looksLikeMistral reports whether a model id names a Mistral model (spec §2.4).
func looksLikeMistral(model string) bool {
	m := strings.ToLower(model)
	for _, hint := range mistralModelHints {
		if strings.Contains(m, hint) {
			return true
		}
	}
	return false
}

package policy

import "strings"

// A plugin builds the policy of a provider that owns a row of the §2.2 table from
// the trimmed API and model. It starts from defaults() and sets only the keys the
// OpenClaw plugin sets, which is the spec's DEFAULT ⊕ plugin(ctx).
type plugin func(api, model string) Policy

// providerPlugins maps a normalised provider id to its row of the §2.2 table.
//
// The "OpenAI-compatible family" row holds arcee, fireworks, moonshot, ollama, xai
// and zai: the names the spec gives (the seed documents name no others). minimax
// joins that row for APIs other than its Anthropic-compatible ones. Providers not
// listed here (vllm, together, groq, ...) get the transport fallback, whose
// openai-completions row has the same flags (spec V30).
var providerPlugins = map[string]plugin{
	"openai":            openAI,
	"openai-codex":      openAI,
	"anthropic":         anthropic,
	"anthropic-vertex":  anthropic,
	"amazon-bedrock":    amazonBedrock,
	"google":            google,
	"google-gemini-cli": google,
	"mistral":           mistral,
	"openrouter":        passthrough,
	"opencode":          passthrough,
	"opencode-go":       passthrough,
	"kilocode":          passthrough,
	"github-copilot":    githubCopilot,
	"minimax":           minimax,
	"kimi-coding":       kimiCoding,
	"arcee":             openAICompatible,
	"fireworks":         openAICompatible,
	"moonshot":          moonshot,
	"ollama":            openAICompatible,
	"xai":               openAICompatible,
	"zai":               openAICompatible,
}

// openAI: images only; strict ids on Chat Completions only, ids untouched on every
// other API (the Responses family keeps its call_id|fc_id pairs, §3.15).
func openAI(api, _ string) Policy {
	p := defaults()
	if api == apiOpenAICompletions {
		p.SanitizeToolCallIDs, p.ToolCallIDMode = true, IDModeStrict
	}
	return p
}

// anthropic (and anthropic-vertex): the strict Anthropic policy, keeping native
// toolu_ ids; signed provider, immutable thinking replay.
func anthropic(_, model string) Policy {
	p := strictAnthropic(model)
	p.PreserveNativeAnthropicToolUseIDs = true
	return p
}

// amazonBedrock: the strict Anthropic policy without native-id preservation.
// The Bedrock empty-turn handling of §3.16 is part of the always-on rules.
func amazonBedrock(_, model string) Policy {
	return strictAnthropic(model)
}

// google (and google-gemini-cli): full mode, strict ids, base64-only thought
// signatures, Gemini turn merge and the assistant-first bootstrap.
func google(_, _ string) Policy {
	p := defaults()
	p.SanitizeMode = ModeFull
	p.SanitizeToolCallIDs, p.ToolCallIDMode = true, IDModeStrict
	p.SanitizeThoughtSignatures = gemini()
	p.ApplyGoogleTurnOrdering = true
	p.ValidateGeminiTurns = true
	p.AllowSyntheticToolResults = true
	return p
}

// mistral: images only, strict9 ids.
func mistral(_, _ string) Policy {
	p := defaults()
	p.SanitizeToolCallIDs, p.ToolCallIDMode = true, IDModeStrict9
	return p
}

// passthrough (openrouter, opencode, opencode-go, kilocode): images only, ids
// untouched; Gemini models get base64-only thought signatures.
func passthrough(_, model string) Policy {
	p := defaults()
	if strings.Contains(strings.ToLower(model), "gemini") {
		p.SanitizeThoughtSignatures = gemini()
	}
	return p
}

// githubCopilot: Claude models drop persisted thinking blocks, because Copilot
// rejects non-base64 signatures such as "reasoning_text"; other models get defaults.
func githubCopilot(_, model string) Policy {
	p := defaults()
	if strings.Contains(strings.ToLower(model), "claude") {
		p.DropThinkingBlocks = true
	}
	return p
}

// minimax is hybrid: its Anthropic-compatible APIs get the strict Anthropic policy
// (not a signed provider, so it relies on PreserveSignatures); other APIs get the
// OpenAI-compatible family row.
func minimax(api, model string) Policy {
	if isAnthropicWireAPI(api) {
		return strictAnthropic(model)
	}
	return openAICompatible(api, model)
}

// kimiCoding: the defaults, with preserveSignatures explicitly false (which is the default).
func kimiCoding(_, _ string) Policy {
	return defaults()
}

// openAICompatible is the OpenAI-compatible family row (April snapshot): strict ids
// on Chat Completions and the Responses family; Chat Completions also validates
// strict alternation and applies the assistant-first bootstrap. Other APIs get the
// defaults. AllowSyntheticToolResults on the Responses family follows OpenClaw's
// family replay builder.
func openAICompatible(api, _ string) Policy {
	p := defaults()
	switch {
	case api == apiOpenAICompletions:
		p.SanitizeToolCallIDs, p.ToolCallIDMode = true, IDModeStrict
		p.ApplyGoogleTurnOrdering = true
		p.ValidateGeminiTurns = true
		p.ValidateAnthropicTurns = true
	case isResponsesAPI(api):
		p.SanitizeToolCallIDs, p.ToolCallIDMode = true, IDModeStrict
		p.AllowSyntheticToolResults = true
	}
	return p
}

// moonshot follows the newer build: Chat Completions keeps strict ids with the
// OpenAI duplicate style (call_ ids kept, repeats re-hashed, §3.6), and the
// Responses family turns id sanitisation off. The April snapshot had the plain
// family row.
func moonshot(api, model string) Policy {
	p := openAICompatible(api, model)
	switch {
	case api == apiOpenAICompletions:
		p.DuplicateToolCallIDStyle = "openai"
	case isResponsesAPI(api):
		p.SanitizeToolCallIDs, p.ToolCallIDMode = false, IDModeNone
	}
	return p
}

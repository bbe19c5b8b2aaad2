package policy

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Resolve returns the transcript policy for a target (spec §2). It never fails:
// a target that does not pass Validate, or an unknown provider with an unknown API,
// gets the default policy (images only, pairing repair on). The order is:
//
//  1. normalise the provider (NormalizeProvider); trim the API and model;
//  2. a provider with a row in the §2.2 table gets that row, and the transport
//     fallback is not consulted;
//  3. any other provider gets the §2.3 transport fallback for its API, and then the
//     §2.4 Mistral model-id detection: a model id naming a Mistral model switches
//     the ids to strict9 (everything else stays as the fallback set it);
//  4. the contract of the target wire is attached (Contract, package
//     contract), and with it the tool-call id limits (IDLimits).
func Resolve(t transcript.Target) Policy {
	provider := NormalizeProvider(t.Provider)
	api := strings.TrimSpace(t.API)
	model := strings.TrimSpace(t.Model)

	var p Policy
	if plugin, ok := providerPlugins[provider]; ok {
		p = plugin(api, model)
	} else {
		p = transportFallback(api, model)
		if looksLikeMistral(model) {
			p.SanitizeToolCallIDs, p.ToolCallIDMode = true, IDModeStrict9
		}
	}
	p.Provider, p.API, p.Model = provider, api, model
	p.Contract = contract.Of(familyFor(p))
	p.IDLimits = p.Contract.ToolCallIDs
	return p
}

// defaults is the policy with no plugin and an unknown API (spec §2.1 "default").
func defaults() Policy {
	return Policy{SanitizeMode: ModeImagesOnly, RepairToolUseResultPairing: true}
}

// gemini returns the options Google-bound rows use for thought signatures.
func gemini() *ThoughtSignatureOptions {
	return &ThoughtSignatureOptions{AllowBase64Only: true, IncludeCamelCase: true}
}

// dropsClaudeThinking is the "claude && !claudePreservesThinking" condition of the
// Anthropic rows: older Claude models must not be sent earlier thinking blocks.
func dropsClaudeThinking(model string) bool {
	return strings.Contains(strings.ToLower(model), "claude") && !ClaudePreservesThinking(model)
}

// transportFallback is the §2.3 table, for providers that own no row of §2.2.
// Only the APIs the spec lists match (compared exactly, after trimming);
// google-vertex and other APIs get the defaults.
func transportFallback(api, model string) Policy {
	p := defaults()
	switch {
	case api == apiGoogleGenerativeAI || api == apiGoogleGeminiCLI:
		p.SanitizeMode = ModeFull
		p.SanitizeToolCallIDs, p.ToolCallIDMode = true, IDModeStrict
		p.SanitizeThoughtSignatures = gemini()
		p.ApplyGoogleTurnOrdering = true
		p.ValidateGeminiTurns = true
		p.AllowSyntheticToolResults = true
	case isAnthropicWireAPI(api):
		p = strictAnthropic(model)
	case api == apiOpenAICompletions:
		p.SanitizeToolCallIDs, p.ToolCallIDMode = true, IDModeStrict
		p.ApplyGoogleTurnOrdering = true
		p.ValidateGeminiTurns = true
		p.ValidateAnthropicTurns = true
	case isResponsesAPI(api):
		p.SanitizeToolCallIDs, p.ToolCallIDMode = true, IDModeStrict
	}
	return p
}

// strictAnthropic is the policy of an Anthropic-wire request: full mode, strict ids,
// signatures preserved, Anthropic turn validation, and thinking dropped for Claude
// models that do not preserve it. The newer-build "model without reasoning effort"
// trigger of §2.3 is not applied: a transcript.Target carries no model capabilities.
func strictAnthropic(model string) Policy {
	p := defaults()
	p.SanitizeMode = ModeFull
	p.SanitizeToolCallIDs, p.ToolCallIDMode = true, IDModeStrict
	p.PreserveSignatures = true
	p.DropThinkingBlocks = dropsClaudeThinking(model)
	p.ValidateAnthropicTurns = true
	p.AllowSyntheticToolResults = true
	return p
}

package policy

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// SanitizeMode selects how much the image pass may clean up (spec §2.1 sanitizeMode).
type SanitizeMode string

const (
	// ModeFull also allows non-image cleanup of assistant text blocks (older builds).
	ModeFull SanitizeMode = "full"
	// ModeImagesOnly sanitises image payloads only; the default.
	ModeImagesOnly SanitizeMode = "images-only"
)

// IDMode is the tool-call id algorithm of spec §3.6.
type IDMode string

const (
	// IDModeNone leaves tool-call ids alone.
	IDModeNone IDMode = ""
	// IDModeStrict keeps only [A-Za-z0-9], at most 40 characters.
	IDModeStrict IDMode = "strict"
	// IDModeStrict9 makes every id exactly 9 characters of [A-Za-z0-9] (Mistral).
	IDModeStrict9 IDMode = "strict9"
)

// ThoughtSignatureOptions configures Gemini thought-signature cleanup (spec §3.9).
type ThoughtSignatureOptions struct {
	AllowBase64Only  bool // delete thought_signature unless it is strict base64
	IncludeCamelCase bool // apply the same check to thoughtSignature
}

// Policy is the resolved TranscriptPolicy of spec §2.1 for one target, plus the
// tool-call id limits of the target provider. Resolve returns it by value; treat
// it, and the options SanitizeThoughtSignatures points to, as read-only.
type Policy struct {
	Provider string // normalised provider id (NormalizeProvider)
	API      string // modelApi as given, trimmed
	Model    string // modelId as given, trimmed

	SanitizeMode                      SanitizeMode
	SanitizeToolCallIDs               bool   // run the id rule (§3.6)
	ToolCallIDMode                    IDMode // its algorithm
	PreserveNativeAnthropicToolUseIDs bool   // keep ^toolu_[A-Za-z0-9_]+$ ids (first occurrence)
	DuplicateToolCallIDStyle          string // "" or "openai" (newer moonshot builds, §3.6)
	RepairToolUseResultPairing        bool   // run pairing repair (§3.7); true in every row
	PreserveSignatures                bool   // provider-owned signed thinking is replayed byte for byte
	// SanitizeThoughtSignatures is nil when unset: the legacy cleanup then strips
	// msg_ values of thought_signature only (§3.9).
	SanitizeThoughtSignatures *ThoughtSignatureOptions
	DropThinkingBlocks        bool // §3.8.1
	DropReasoningFromHistory  bool // §3.8.4; no row of the spec's tables sets it
	ApplyGoogleTurnOrdering   bool // §3.11 (plugin key applyAssistantFirstOrderingFix)
	ValidateGeminiTurns       bool // §3.12.1
	ValidateAnthropicTurns    bool // §3.12.2
	AllowSyntheticToolResults bool // informational; pairing repair inserts synthetics whenever it runs

	IDLimits contract.IDLimits // what the target provider accepts as a tool-call id (Contract.ToolCallIDs)
	// Contract is what the target family documents that a request must
	// meet; the rules read their provider limits from it.
	Contract contract.Contract
}

// AllowProviderOwnedThinkingReplay reports whether signed thinking must be replayed
// unchanged ("immutable signed thinking", spec §2.1, newer form): the API is
// Anthropic Messages or Bedrock Converse, Anthropic turn validation is on, the
// thinking is provider-owned (PreserveSignatures or a signed provider) and thinking
// blocks are not being dropped.
func (p Policy) AllowProviderOwnedThinkingReplay() bool {
	return isAnthropicWireAPI(p.API) &&
		p.ValidateAnthropicTurns &&
		(p.PreserveSignatures || p.SignedThinkingProvider()) &&
		!p.DropThinkingBlocks
}

// VerifiesThinkingOf reports whether the target verifies the thinking
// signatures of an assistant turn written by provider over api (the turn's
// own "provider" and "api" members): only then is the turn immutable. It
// holds when the policy replays provider-owned thinking
// (AllowProviderOwnedThinkingReplay) and the turn's signer is the target's
// (Signer, of the turn's provider and model): a provider verifies only the
// signatures made with its own key. Thinking of another provider (OpenAI
// reasoning, Gemini thoughts, a MiniMax turn replayed to Anthropic, a Claude
// turn replayed to MiniMax's Anthropic-compatible API) is foreign and does
// not freeze its turn (issue 20). Choice: a turn that names no provider is
// taken as the target's own when its api is of the Anthropic Messages or
// Bedrock Converse wire or absent, as before.
func (p Policy) VerifiesThinkingOf(provider, api, model string) bool {
	if !p.AllowProviderOwnedThinkingReplay() {
		return false
	}
	if s := Signer(provider, model); s != "" {
		return s == Signer(p.Provider, p.Model)
	}
	if api = strings.TrimSpace(api); api != "" {
		return isAnthropicWireAPI(api)
	}
	return true
}

// SignerAnthropic is Signer's name for the providers whose thinking
// signatures Anthropic documents as valid across its own API, Amazon
// Bedrock and Google Vertex AI ("Signature values are compatible across
// platforms", Extended thinking, Claude docs).
const SignerAnthropic = "anthropic, amazon-bedrock, anthropic-vertex"

// Signer names whose key signed the thinking of a turn that provider wrote
// with model (or whose key a target of that provider and model verifies):
// SignerAnthropic for the Anthropic family and for a Claude model behind any
// provider (a gateway or router on the Anthropic wire forwards Claude's
// signatures to Anthropic, which checks them), else the provider itself,
// normalised; "" for a blank provider.
func Signer(provider, model string) string {
	provider = NormalizeProvider(provider)
	switch {
	case provider == "":
		return ""
	case isSignedThinkingProvider(provider), strings.Contains(strings.ToLower(model), "claude"):
		return SignerAnthropic
	}
	return provider
}

// VerifiesTurn is VerifiesThinkingOf for assistant m's own provider, api
// and model members, which it reads only for a target that replays
// provider-owned thinking (for any other, no turn is verified).
func (p Policy) VerifiesTurn(m *transcript.Message) bool {
	v := p.TurnVerifier()
	return v.Verifies(m)
}

// TurnVerifier is VerifiesTurn for the assistant turns of a walk over one
// history: the turns of a session mostly share their provider, api and
// model, so it keeps the verdict for the last three it read and asks
// VerifiesThinkingOf again only when one of them changes. It is not safe
// for concurrent use: a walk in chunks takes one per chunk.
type TurnVerifier struct {
	policy               *Policy
	replays              bool // policy.AllowProviderOwnedThinkingReplay()
	provider, api, model string
	verdict, read        bool // the verdict for the three, once one is read
}

// TurnVerifier returns a TurnVerifier of p, which must not change while it
// is in use.
func (p *Policy) TurnVerifier() TurnVerifier {
	return TurnVerifier{policy: p, replays: p.AllowProviderOwnedThinkingReplay()}
}

// Verifies reports VerifiesTurn(m) of its policy.
func (v *TurnVerifier) Verifies(m *transcript.Message) bool {
	if !v.replays {
		return false
	}
	provider, _ := m.String("provider")
	api, _ := m.String("api")
	model, _ := m.String("model")
	if !v.read || provider != v.provider || api != v.api || model != v.model {
		v.provider, v.api, v.model, v.read = provider, api, model, true
		v.verdict = v.policy.VerifiesThinkingOf(provider, api, model)
	}
	return v.verdict
}

// SignedThinkingProvider reports whether the provider is anthropic, amazon-bedrock
// or anthropic-vertex (spec §2.1).
func (p Policy) SignedThinkingProvider() bool {
	return isSignedThinkingProvider(p.Provider)
}

// IsResponsesAPI reports whether the API is in the OpenAI Responses family:
// openai-responses, openai-codex-responses (renamed openai-chatgpt-responses) or
// azure-openai-responses (spec §2.1).
func (p Policy) IsResponsesAPI() bool {
	return isResponsesAPI(p.API)
}

// IsGoogleFamily reports whether the request goes to Gemini: provider google or
// google-gemini-cli, or any API whose name starts with "google-" (google-generative-ai,
// google-gemini-cli, google-vertex, ...). It is wider than the Google rows of the
// policy tables, which match only the two providers and the two APIs the spec names.
func (p Policy) IsGoogleFamily() bool {
	return p.Provider == "google" || p.Provider == "google-gemini-cli" || strings.HasPrefix(p.API, "google-")
}

// IsAnthropicFamily reports whether the request reaches an Anthropic model wire
// (for image limits): provider anthropic, anthropic-vertex or amazon-bedrock, or API
// anthropic-messages or bedrock-converse-stream.
func (p Policy) IsAnthropicFamily() bool {
	return isSignedThinkingProvider(p.Provider) || isAnthropicWireAPI(p.API)
}

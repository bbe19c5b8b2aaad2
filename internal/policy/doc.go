// Package policy resolves a job's target (provider, model API, model id) to the
// transcript policy that decides which hygiene rules run and how (spec §2 of
// ../shared/spec/transcript-hygiene.md). The hygiene rules read the Policy; they
// never look at provider names themselves.
//
// # Resolution order
//
// Resolve is a pure function of the Target:
//
//  1. The provider id is normalised: lower-cased, trimmed, and aliases applied
//     (bedrock and aws-bedrock → amazon-bedrock, z.ai → zai, moonshotai → moonshot,
//     kimi-code → kimi-coding, ...; see NormalizeProvider). The API and model id are
//     only trimmed, and the API is then compared exactly.
//  2. If the provider owns a row of the provider table (§2.2: openai, anthropic,
//     amazon-bedrock, google, mistral, openrouter, github-copilot, minimax,
//     kimi-coding, the OpenAI-compatible family, ...), that row decides, starting
//     from the defaults. The transport fallback is not consulted.
//  3. Otherwise the transport fallback (§2.3) decides from the API alone (with the
//     model id for the Claude thinking condition). Then the legacy Mistral detection
//     (§2.4) applies: a model id containing mistral, mixtral, codestral, pixtral,
//     devstral, ministral or mistralai switches tool-call ids to strict9.
//  4. The contract of the target wire (package contract) is attached, and with it
//     the tool-call id limits (IDLimits), so the id rule can check that every id it
//     emits is accepted.
//
// An unknown provider with an unknown API gets the defaults: images-only
// sanitisation plus tool-result pairing repair. Target.Validate is the only error
// path: a target with neither provider nor API cannot be resolved meaningfully.
//
// # Choices the spec leaves open
//
//   - Where builds differ, the newer one is followed: allowProviderOwnedThinkingReplay
//     accepts a signed provider in place of preserveSignatures, and moonshot keeps
//     strict ids (with the OpenAI duplicate style) on openai-completions only.
//   - openai-chatgpt-responses, the newer name of openai-codex-responses, is in the
//     Responses family everywhere the spec names the old one.
//   - AllowSyntheticToolResults, which the tables do not list, is set where
//     OpenClaw's replay builders set it: Google and Anthropic-wire rows, and the
//     Responses family of the OpenAI-compatible row.
//   - DropReasoningFromHistory is never set: no row of the spec's tables sets it
//     (OpenClaw sets it per plugin or per model capability, which a transcript.Target lacks).
//     The same holds for the newer "model without reasoning effort" trigger of
//     dropThinkingBlocks in §2.3.
//   - Of the §2.4 legacy detections only the Mistral one is kept; the OpenRouter
//     Gemini and OpenAI cases are covered by the provider table, and the Azure case
//     by the transport fallback (strict ids on every OpenAI API).
//
// May import: internal/contract, internal/transcript.
package policy

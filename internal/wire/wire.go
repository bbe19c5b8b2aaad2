package wire

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Format is a provider request format the renderer writes: the one type
// of package contract, whose body rules read the same formats.
type Format = contract.BodyFormat

// The six formats, named as the ready payload's request_format names them.
const (
	AnthropicMessages = contract.BodyAnthropic
	BedrockConverse   = contract.BodyBedrock
	OpenAIChat        = contract.BodyChat
	OpenAIResponses   = contract.BodyResponses
	GeminiContents    = contract.BodyGemini
	MistralChat       = contract.BodyMistral
)

// Formats lists every format, in a fixed order.
var Formats = []Format{AnthropicMessages, BedrockConverse, OpenAIChat, OpenAIResponses, GeminiContents, MistralChat}

// Render values of the job option `render`.
const (
	RenderMessages = "messages" // the default: the sanitized messages only
	RenderRequest  = "request"  // the messages and the provider request body
)

// FormatFor picks the request format of a target from its API (spec §1.2
// lists the values): anthropic-messages; bedrock-converse(-stream); the
// OpenAI Responses family; google-*; mistral-conversations (or provider
// mistral). Every other API, openai-completions and custom strings alike,
// gets Chat Completions, the format OpenAI-compatible servers share.
func FormatFor(p policy.Policy) Format {
	switch {
	case p.API == "anthropic-messages":
		return AnthropicMessages
	case strings.HasPrefix(p.API, "bedrock-converse"):
		return BedrockConverse
	case p.IsResponsesAPI():
		return OpenAIResponses
	case strings.HasPrefix(p.API, "google-"):
		return GeminiContents
	case p.API == "mistral-conversations" || p.API == "" && p.Provider == "mistral":
		return MistralChat
	}
	return OpenAIChat
}

// ToolsAsText reports whether a job's request body must carry its tool
// history as text (the tools_offered: false form of package toolcalls) even
// though the job did not say tools_offered: false. That is the case for a
// Bedrock Converse body (render: request) whose job lists no `tools`:
// Converse refuses toolUse and toolResult blocks in a request without a
// toolConfig ("The toolConfig field must be defined when using toolUse and
// toolResult content blocks": pydantic/pydantic-ai#1966, BerriAI/litellm
// PR #31400, vercel/ai PR #7537), and declaring tools the runner does not
// offer would invite the model to call them.
func ToolsAsText(p policy.Policy, o transcript.Options) bool {
	return o.Render == RenderRequest && len(o.Tools) == 0 && FormatFor(p) == BedrockConverse
}

// Request is what a rendered body carries besides the history.
type Request struct {
	// System is the job's `system` option: a JSON string or an array of
	// {"type":"text","text":...} blocks; nil when the job has none.
	System json.RawMessage
	// Tools is the job's `tools` option.
	Tools []transcript.Tool
	// Final is how the body treats a final assistant turn (FinalTurn).
	Final Final
}

// Render appends the request body of format f for the sanitized messages:
// the history member (messages, contents or input), the system prompt and
// the tools when the job gives them. Model parameters (model, max_tokens,
// temperature, ...) are the runner's. p is the job's resolved policy (its
// provider and model select the wire-only repairs). The output is a pure
// function of the messages' bytes, p and req.
func Render(dst []byte, f Format, p policy.Policy, msgs []*transcript.Message, req Request) []byte {
	turns, size := readHistory(msgs)
	if req.Final == FinalTrim {
		trimFinal(turns)
	}
	dst = slices.Grow(dst, size+len(req.System)+256*len(req.Tools))
	sys, sysCache, _ := systemTexts(req.System)
	switch f {
	case AnthropicMessages:
		return renderAnthropic(dst, turns, sys, sysCache, req.Tools)
	case BedrockConverse:
		return renderBedrock(dst, turns, sys, req.Tools)
	case OpenAIResponses:
		return renderResponses(dst, turns, sys, req.Tools, p.Provider == contract.CopilotProvider)
	case GeminiContents:
		return renderGemini(dst, turns, sys, req.Tools, needsSignatureSentinel(p.Model))
	case MistralChat:
		return renderChat(dst, turns, sys, req.Tools, chatDialect{mistral: true, prefix: req.Final == FinalPrefix})
	}
	return renderChat(dst, turns, sys, req.Tools, chatDialect{reasoningContent: wantsReasoningContent(p)})
}

// needsSignatureSentinel reports whether the Gemini model validates thought
// signatures on the function calls of the current turn: Gemini 3 and later
// (gemini-3-pro-preview, gemini-3-flash, gemini-3.1-…), except the image
// models, which the Vertex AI page says do not enforce it. Gemini 2.5
// accepts calls without a signature. Source: "Thought signatures",
// https://ai.google.dev/gemini-api/docs/thought-signatures and
// https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures.
func needsSignatureSentinel(model string) bool {
	m := strings.ToLower(model)
	i := strings.Index(m, "gemini-")
	if i < 0 || strings.Contains(m, "image") {
		return false
	}
	rest := m[i+len("gemini-"):]
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	major, err := strconv.Atoi(rest[:end])
	return err == nil && major >= 3
}

// wantsReasoningContent reports whether a Chat Completions target is one of
// the thinking-mode APIs that require reasoning_content on assistant
// tool-call turns: DeepSeek (provider deepseek or a deepseek model) and
// Moonshot / Kimi (provider moonshot, kimi or kimi-coding, or a kimi model).
// Sources: https://api-docs.deepseek.com/guides/thinking_mode (tool-call
// turns must pass reasoning_content back, or the API returns 400; thinking
// mode is on by default); anomalyco/opencode#24722 and #25758,
// RooCodeInc/Roo-Code#10171 ("Missing reasoning_content field in the
// assistant message at message index N" from Kimi).
func wantsReasoningContent(p policy.Policy) bool {
	switch p.Provider {
	case "deepseek", "moonshot", "kimi", "kimi-coding":
		return true
	}
	m := strings.ToLower(p.Model)
	return strings.Contains(m, "deepseek") || strings.Contains(m, "kimi")
}

package contract

import (
	"strconv"
	"strings"
)

// Prefill is what a target model does with a request whose last turn is
// the assistant's (an assistant prefill: the model continues that turn).
type Prefill uint8

const (
	// PrefillAccepted: the model continues a final assistant turn. Where
	// the API documents it, the final text must not end in white space,
	// so the renderer trims it.
	PrefillAccepted Prefill = iota
	// PrefillRefused: the API refuses a request that ends with an
	// assistant turn; the request must end with a user turn or tool
	// results.
	PrefillRefused
	// PrefillFlagged: the API takes a final assistant turn only when that
	// turn says it is a prefix (Mistral's "prefix": true).
	PrefillFlagged
)

// PrefillRule is a target model's prefill fact with the rule's sentence,
// for a dead letter and for `worker check`.
type PrefillRule struct {
	Prefill Prefill
	// Rule says what the API wants, with its source's words.
	Rule string
	// TrimTrailingSpace: the final assistant text must not end in white
	// space (Anthropic: "final assistant content cannot end with trailing
	// whitespace").
	TrimTrailingSpace bool
}

// The prefill facts, each with its source.
var (
	// claudeNoPrefill: Claude Opus 4.6, Sonnet 4.6 and every later Claude
	// model refuse a final assistant turn, on Anthropic's API and on
	// Bedrock and Vertex AI alike ("Prefill removal: Prefilling assistant
	// messages returns a 400 error on Claude 4.6 models",
	// platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-6;
	// the API's words "This model does not support assistant message
	// prefill. The conversation must end with a user message":
	// strands-agents/sdk-python#1694 for Bedrock's
	// us.anthropic.claude-opus-4-6-v1, langchain-ai/deepagents#1585 for
	// Opus and Sonnet 4.6, ericc-ch/copilot-api#261 for 4.7 and 4.8,
	// cortexkit/magic-context#511 for Sonnet 5).
	claudeNoPrefill = PrefillRule{Prefill: PrefillRefused,
		Rule: "Claude 4.6 and later do not support assistant message prefill: the conversation must end with a user message or tool results"}
	// claudePrefill: earlier Claude models continue a final assistant
	// turn, whose text must not end in white space (Anthropic Messages
	// API: "final assistant content cannot end with trailing whitespace";
	// Anthropic's prefill guide, "Prefill Claude's response").
	claudePrefill = PrefillRule{Prefill: PrefillAccepted, TrimTrailingSpace: true,
		Rule: "a final assistant turn is a prefill, whose text must not end in white space"}
	// mistralPrefix: Mistral's chat API refuses a final assistant message
	// unless it is marked prefix ("Expected last role User or Tool (or
	// Assistant with prefix True) for serving but got assistant";
	// docs.mistral.ai, "Prefix": the assistant message with "prefix": true).
	mistralPrefix = PrefillRule{Prefill: PrefillFlagged,
		Rule: "Mistral expects the last role to be user or tool, or assistant with prefix: true (job option continue: true)"}
	// otherPrefill: the other APIs document no refusal of a final
	// assistant turn (OpenAI Chat Completions and Responses take any
	// message order; Gemini continues a final model turn).
	otherPrefill = PrefillRule{Prefill: PrefillAccepted, Rule: "a final assistant turn is accepted"}
)

// PrefillOf returns the prefill fact of a target: its contract's family and
// the model id (Anthropic ids such as claude-opus-4-6, Bedrock ids such as
// us.anthropic.claude-sonnet-4-6-v1:0, Vertex ids such as
// claude-sonnet-4@20250514, older ids such as claude-3-7-sonnet-20250219,
// router ids such as anthropic/claude-opus-4-6). A Claude 4.6 or later
// model refuses prefill whatever API reaches it: a router that forwards to
// Anthropic passes the refusal on (GitHub Copilot with Opus 4.6:
// anomalyco/opencode#13768).
func PrefillOf(f Family, model string) PrefillRule {
	major, minor, claude := claudeVersion(model)
	if claude && (major > 4 || major == 4 && minor >= 6) {
		return claudeNoPrefill
	}
	switch f {
	case AnthropicMessages, AnthropicCloud, AnthropicCompatible:
		return claudePrefill
	case BedrockConverse:
		if claude {
			return claudePrefill
		}
	case Mistral:
		return mistralPrefix
	}
	return otherPrefill
}

// claudeVersion reads the version of a Claude model id: the first one or
// two short numbers after "claude-" (a date, eight digits, ends it), so
// claude-opus-4-6 is 4.6, claude-opus-4-20250514 is 4.0 and
// claude-3-7-sonnet-20250219 is 3.7. ok is false for an id without
// "claude" or without a version.
func claudeVersion(model string) (major, minor int, ok bool) {
	m := strings.ToLower(model)
	i := strings.Index(m, "claude")
	if i < 0 {
		return 0, 0, false
	}
	var nums []int
	for _, tok := range strings.FieldsFunc(m[i+len("claude"):], func(r rune) bool { return r == '-' || r == '.' || r == ':' || r == '@' }) {
		n, err := strconv.Atoi(tok)
		if err != nil {
			if len(nums) > 0 {
				break
			}
			continue
		}
		if len(tok) > 2 {
			break // a date or a build number
		}
		if nums = append(nums, n); len(nums) == 2 {
			break
		}
	}
	switch len(nums) {
	case 0:
		return 0, 0, false
	case 1:
		return nums[0], 0, true
	}
	return nums[0], nums[1], true
}

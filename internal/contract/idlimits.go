package contract

import "regexp"

// IDLimits says which identifiers the target provider accepts: the tool-call
// ids (so the id rule can guarantee acceptance rather than only follow
// OpenClaw's algorithm) and the tool names of a contract. The zero value
// means "no documented limit": any non-empty string.
//
// Lengths count bytes. A byte count is never smaller than a character count, so an
// id that passes here passes whichever way the provider counts.
type IDLimits struct {
	MaxLen   int    // longest accepted id in bytes; 0 = no limit
	Pattern  string // RE2 expression the whole id must match, in documentation form (^…$); "" = any
	ExactLen int    // required id length in bytes; 0 = any
}

// The limits of each provider wire, with their sources.
var (
	// anthropicLimits: Anthropic Messages rejects tool_use ids that do not match
	// ^[a-zA-Z0-9_-]+$ ("messages.5.content.0.tool_use.id: String should match
	// pattern": tailcallhq/forgecode#1142); no maximum length is
	// documented. Applies to anthropic, anthropic-vertex and the anthropic-messages API.
	anthropicLimits = IDLimits{Pattern: `^[a-zA-Z0-9_-]+$`}
	// bedrockLimits: Amazon Bedrock API reference, ToolUseBlock/ToolResultBlock
	// toolUseId: length 1–64, pattern ^[a-zA-Z0-9_-]+$.
	bedrockLimits = IDLimits{MaxLen: 64, Pattern: `^[a-zA-Z0-9_-]+$`}
	// chatCompletionsLimits: OpenAI-style Chat Completions (Azure OpenAI) reject
	// tool-call ids over 40 characters (spec §3.6 "maximum length in strict mode is
	// 40 (Azure limit)", §6).
	chatCompletionsLimits = IDLimits{MaxLen: 40}
	// responsesLimits: the OpenAI Responses API rejects a call_id longer than 64
	// characters ("string too long. Expected a string with maximum length 64");
	// spec §3.8.3 notes newer OpenClaw builds normalise overlong call ids for this.
	responsesLimits = IDLimits{MaxLen: 64}
	// mistralLimits: Mistral requires tool call ids of exactly 9 characters of
	// a-z, A-Z, 0-9 (spec §6, strict9).
	mistralLimits = IDLimits{ExactLen: 9, Pattern: `^[a-zA-Z0-9]{9}$`}
	// googleLimits: Gemini / Cloud Code Assist reject non-alphanumeric
	// function-call ids (spec §6; OpenClaw's "strict alphanumeric" for Google).
	googleLimits = IDLimits{Pattern: `^[a-zA-Z0-9]+$`}
)

// geminiNamePattern is Gemini's function-name rule (see the Gemini row of
// the table for its source).
const geminiNamePattern = `^[a-zA-Z_][a-zA-Z0-9_.:-]*$`

// Valid reports whether the provider accepts id as a tool-call id. The empty id is
// never valid (spec §1.3: a call needs a non-empty id). A Pattern that does not
// compile accepts nothing.
func (l IDLimits) Valid(id string) bool {
	if id == "" || (l.MaxLen > 0 && len(id) > l.MaxLen) || (l.ExactLen > 0 && len(id) != l.ExactLen) {
		return false
	}
	if l.Pattern == "" {
		return true
	}
	re := compiledPattern(l.Pattern)
	return re != nil && re.MatchString(id)
}

// knownPatterns holds the compiled Pattern of every limit above, so Valid never
// compiles on the hot path. Other patterns are compiled per call and not cached,
// which keeps memory bounded whatever callers pass.
var knownPatterns = map[string]*regexp.Regexp{
	anthropicLimits.Pattern: regexp.MustCompile(anthropicLimits.Pattern),
	mistralLimits.Pattern:   regexp.MustCompile(mistralLimits.Pattern),
	googleLimits.Pattern:    regexp.MustCompile(googleLimits.Pattern),
	geminiNamePattern:       regexp.MustCompile(geminiNamePattern),
}

func compiledPattern(expr string) *regexp.Regexp {
	if re, ok := knownPatterns[expr]; ok {
		return re
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	return re
}

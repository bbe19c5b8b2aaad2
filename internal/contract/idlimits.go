package contract

import (
	"regexp"
	"strconv"
	"strings"
)

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

// responsesItemLimits: the OpenAI Responses API documents no limit for a
// function_call item's id (the API reference types it as a string); pi-ai
// stores the fc_ ids it was given, about 53 bytes. Any non-empty string.
var responsesItemLimits = IDLimits{}

// SplitCallItem splits a tool-call id as stored by OpenClaw and pi-ai for
// the OpenAI Responses API, "call_X|fc_Y", into the two values its wire
// carries: the call_id ("call_X") and the function_call item's id ("fc_Y")
// (spec §3.8.3). The split is at the first "|", and only when both sides
// are non-empty and the item side starts with "fc_" or is a GitHub
// Copilot item id (CopilotItemID: "call_<24>|<base64>"); any other id is
// the call_id alone (ok false, item ""). The renderer (internal/wire) and
// the contract check both use it, so what is checked is what is sent.
func SplitCallItem(stored string) (call, item string, ok bool) {
	i := strings.IndexByte(stored, '|')
	if i <= 0 || i+1 >= len(stored) || !strings.HasPrefix(stored[i+1:], "fc_") && !CopilotItemID(stored[i+1:]) {
		return stored, "", false
	}
	return stored[:i], stored[i+1:], true
}

// CopilotProvider is GitHub Copilot's provider name. Its Responses endpoint
// gives its output items (reasoning, function_call, message) opaque ids
// bound to the connection instead of rs_, fc_ and msg_ ids: base64, about
// 410 characters, which it checks against the reasoning's
// encrypted_content. It accepts them back as they were given (or left
// out), and refuses any other id in their place ("Encrypted content
// item_id did not match the target item id": openclaw/openclaw#71333,
// #72602, #72613).
const CopilotProvider = "github-copilot"

// minCopilotItemID is the shortest id CopilotItemID takes: Copilot's are
// about 410 characters, and the item halves of other stored ids (50 hex
// digits after a "|", say) are far shorter.
const minCopilotItemID = 128

// CopilotItemID reports whether id is such a Copilot item id: at least
// minCopilotItemID characters of the base64 alphabets (A-Z a-z 0-9 + / _
// -) and '=' padding at the end only, and not an rs_, fc_ or msg_ id.
func CopilotItemID(id string) bool {
	if len(id) < minCopilotItemID || strings.HasPrefix(id, "rs_") || strings.HasPrefix(id, "fc_") || strings.HasPrefix(id, "msg_") {
		return false
	}
	body := strings.TrimRight(id, "=")
	if len(id)-len(body) > 2 {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// WireIDs returns the values the target's wire carries for a stored
// tool-call id: on a wire that splits ids (SplitIDs) the call_id and the
// item id of SplitCallItem, else the id itself and "".
func (c Contract) WireIDs(stored string) (call, item string) {
	if !c.SplitIDs {
		return stored, ""
	}
	call, item, _ = SplitCallItem(stored)
	return call, item
}

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

// matcher is a compiled Pattern.
type matcher interface{ MatchString(string) bool }

// knownPatterns holds the compiled Pattern of every limit above, so Valid never
// compiles on the hot path. Other patterns are compiled per call and not cached,
// which keeps memory bounded whatever callers pass.
var knownPatterns = map[string]matcher{
	anthropicLimits.Pattern:  mustCompile(anthropicLimits.Pattern),
	mistralLimits.Pattern:    mustCompile(mistralLimits.Pattern),
	googleLimits.Pattern:     mustCompile(googleLimits.Pattern),
	geminiNamePattern:        mustCompile(geminiNamePattern),
	anthropicFileIDs.Pattern: mustCompile(anthropicFileIDs.Pattern),
	openAIFileIDs.Pattern:    mustCompile(openAIFileIDs.Pattern),
	mistralFileIDs.Pattern:   mustCompile(mistralFileIDs.Pattern),
}

func mustCompile(expr string) matcher {
	m := compile(expr)
	if m == nil {
		panic("contract: pattern does not compile: " + expr)
	}
	return m
}

func compiledPattern(expr string) matcher {
	if m, ok := knownPatterns[expr]; ok {
		return m
	}
	return compile(expr)
}

// compile returns nil when expr is no regexp, else a class sequence when it
// is one (every documented rule is), else the regexp.
func compile(expr string) matcher {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	if seq, ok := parseClassSeq(expr); ok {
		return seq
	}
	return re
}

// classSeq matches a pattern of the form ^ITEM...$ where each ITEM is a
// bracket class of ASCII characters and ranges with a quantifier (none, +,
// * or {n}), every item but the last of a fixed count. Greedy matching is
// then exact, so it needs one pass and a table lookup per byte instead of
// the regexp engine (the contract check tests every id and name of a
// request). A byte outside ASCII is in no class, as a rune outside the
// class is not matched by the regexp.
type classSeq []classItem

type classItem struct {
	set      [128]bool
	min, max int // max < 0: unbounded
}

// MatchString reports whether the whole of s matches.
func (q classSeq) MatchString(s string) bool {
	i := 0
	for _, it := range q {
		n := 0
		for i < len(s) && (it.max < 0 || n < it.max) && s[i] < 128 && it.set[s[i]] {
			i++
			n++
		}
		if n < it.min {
			return false
		}
	}
	return i == len(s)
}

// parseClassSeq parses expr as a classSeq; ok is false for anything else.
func parseClassSeq(expr string) (q classSeq, ok bool) {
	if len(expr) < 2 || expr[0] != '^' || expr[len(expr)-1] != '$' {
		return nil, false
	}
	rest := expr[1 : len(expr)-1]
	for rest != "" {
		if rest[0] != '[' {
			return nil, false
		}
		end := strings.IndexByte(rest, ']')
		if end < 2 {
			return nil, false
		}
		var it classItem
		class := rest[1:end]
		for i := 0; i < len(class); i++ {
			c := class[i]
			if c == '^' || c == '\\' || c == '[' || c >= 128 {
				return nil, false
			}
			if i+2 < len(class) && class[i+1] == '-' {
				if e := class[i+2]; e < c || e >= 128 || e == '\\' || e == '[' || e == '^' {
					return nil, false
				}
				for r := c; r <= class[i+2]; r++ {
					it.set[r] = true
				}
				i += 2
				continue
			}
			it.set[c] = true
		}
		rest = rest[end+1:]
		it.min, it.max = 1, 1
		switch {
		case strings.HasPrefix(rest, "+"):
			it.min, it.max, rest = 1, -1, rest[1:]
		case strings.HasPrefix(rest, "*"):
			it.min, it.max, rest = 0, -1, rest[1:]
		case strings.HasPrefix(rest, "{"):
			close := strings.IndexByte(rest, '}')
			digits := rest[1:max(close, 1)]
			n, err := strconv.Atoi(digits)
			if close < 0 || err != nil || strings.TrimLeft(digits, "0123456789") != "" ||
				(len(digits) > 1 && digits[0] == '0') || n > 1000 {
				return nil, false
			}
			it.min, it.max, rest = n, n, rest[close+1:]
		}
		if len(q) > 0 && q[len(q)-1].min != q[len(q)-1].max {
			return nil, false // greedy would be wrong after a variable item
		}
		q = append(q, it)
	}
	return q, len(q) > 0
}

package policy

import "strings"

// ClaudePreservesThinking reports whether a Claude model keeps thinking blocks
// across turns, so they must not be dropped (spec §2.1 claudePreservesThinking).
// The lower-cased id must contain "claude"; then it is true when the id contains
// "opus-4", "sonnet-4" or "haiku-4", or has "claude-" followed by a digit 5–9 or by
// two or more digits. "claude-3-7-sonnet" is false.
func ClaudePreservesThinking(modelID string) bool {
	id := strings.ToLower(modelID)
	if !strings.Contains(id, "claude") {
		return false
	}
	for _, family := range []string{"opus-4", "sonnet-4", "haiku-4"} {
		if strings.Contains(id, family) {
			return true
		}
	}
	const prefix = "claude-"
	for rest := id; ; {
		i := strings.Index(rest, prefix)
		if i < 0 {
			return false
		}
		rest = rest[i+len(prefix):]
		if len(rest) > 0 && rest[0] >= '5' && rest[0] <= '9' {
			return true
		}
		if len(rest) > 1 && isDigit(rest[0]) && isDigit(rest[1]) {
			return true
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

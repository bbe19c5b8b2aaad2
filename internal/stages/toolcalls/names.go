package toolcalls

import "strings"

// maxToolNameLen is the longest tool name, after trimming, that a call may
// carry (spec §3.5).
const maxToolNameLen = 64

// validToolName reports whether a trimmed tool name is acceptable: non-empty,
// at most 64 characters, and made only of [A-Za-z0-9_:.-] (spec §3.5).
func validToolName(name string) bool {
	if name == "" || len(name) > maxToolNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_', c == ':', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

// allowList is the set of tool names the current run offers, lower-cased and
// trimmed. A nil allowList means no list was supplied: every valid name passes.
type allowList map[string]struct{}

// newAllowList builds the allow-list from the job's allowed_tool_names. Blank
// entries are ignored; a list with no usable entry counts as "not supplied"
// (a job cannot tell an empty list from an absent one, and an empty list would
// otherwise drop every call in the history).
func newAllowList(names []string) allowList {
	var set allowList
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" {
			continue
		}
		if set == nil {
			set = allowList{}
		}
		set[n] = struct{}{}
	}
	return set
}

// allows reports whether a trimmed name is in the list (case-insensitive), or
// whether there is no list at all.
func (a allowList) allows(trimmedName string) bool {
	if a == nil {
		return true
	}
	_, ok := a[strings.ToLower(trimmedName)]
	return ok
}

package toolcalls

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
)

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
// trimmed, each with the name it stands for: itself, or for a wire form
// (see newAllowList) the allowed name as written. A nil allowList means no
// list was supplied: every valid name passes.
type allowList map[string]allowed

// allowed is what a name of an allowList stands for.
type allowed struct {
	name string // the allowed name as the job writes it (trimmed)
	wire bool   // the key is a wire form of name, not name itself
}

// newAllowList builds the allow-list from the job's allowed_tool_names. Blank
// entries are ignored; a list with no usable entry counts as "not supplied"
// (a job cannot tell an empty list from an absent one, and an empty list would
// otherwise drop every call in the history).
//
// An allowed name the target refuses (limits, its contract's ToolNames)
// also allows its wire forms, the names ToolNames gives it (WireForms):
// a ready payload carries `browser_open` for an allowed `browser.open`, and
// sanitizing that payload again with the same options must keep the call
// and its result (issue 29). A name the list holds itself stays itself.
func newAllowList(names []string, limits contract.IDLimits) allowList {
	var set allowList
	var refused []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if set == nil {
			set = allowList{}
		}
		set[strings.ToLower(n)] = allowed{name: n}
		if !limits.Valid(n) {
			refused = append(refused, n)
		}
	}
	for _, n := range refused {
		for _, w := range WireForms(n, limits) {
			if _, taken := set[strings.ToLower(w)]; !taken {
				set[strings.ToLower(w)] = allowed{name: n, wire: true}
			}
		}
	}
	return set
}

// allows reports whether a trimmed name is in the list (case-insensitive),
// itself or as the wire form of an allowed name, or whether there is no
// list at all.
func (a allowList) allows(trimmedName string) bool {
	if a == nil {
		return true
	}
	_, ok := a[strings.ToLower(trimmedName)]
	return ok
}

// wireOf returns the allowed name that name is a wire form of, when the
// list does not hold name itself.
func (a allowList) wireOf(name string) (string, bool) {
	v, ok := a[strings.ToLower(name)]
	if !ok || !v.wire {
		return "", false
	}
	return v.name, true
}

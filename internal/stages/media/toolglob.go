package media

import "strings"

// toolFilter decides which tools' results pruning may touch (spec §3.18
// tools.allow / tools.deny): patterns and names are trimmed and
// lower-cased, "*" is the only wildcard and matches any run of characters,
// deny wins, and an empty allow list allows every tool.
type toolFilter struct {
	allow, deny [][]string // each pattern split at its '*'s
}

// newToolFilter compiles the allow and deny globs; blank patterns are
// ignored.
func newToolFilter(allow, deny []string) toolFilter {
	return toolFilter{allow: compileGlobs(allow), deny: compileGlobs(deny)}
}

func compileGlobs(patterns []string) [][]string {
	var out [][]string
	for _, p := range patterns {
		p = normalizeToolName(p)
		if p == "" {
			continue
		}
		out = append(out, strings.Split(p, "*"))
	}
	return out
}

// prunable reports whether results of the named tool may be pruned.
func (f toolFilter) prunable(name string) bool {
	name = normalizeToolName(name)
	for _, g := range f.deny {
		if globMatch(g, name) {
			return false
		}
	}
	if len(f.allow) == 0 {
		return true
	}
	for _, g := range f.allow {
		if globMatch(g, name) {
			return true
		}
	}
	return false
}

// normalizeToolName trims JavaScript white space and lower-cases.
func normalizeToolName(s string) string {
	return strings.ToLower(strings.TrimFunc(s, isJSSpace))
}

// isJSSpace reports whether r is JavaScript white space (String.prototype.trim).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// globMatch matches name against a pattern split at its '*'s: the first
// piece is a prefix, the last a suffix, and the middle pieces occur in
// order between them (leftmost matching is enough with one wildcard kind).
func globMatch(pieces []string, name string) bool {
	if len(pieces) == 1 {
		return name == pieces[0]
	}
	first, last := pieces[0], pieces[len(pieces)-1]
	if len(name) < len(first)+len(last) || !strings.HasPrefix(name, first) || !strings.HasSuffix(name, last) {
		return false
	}
	rest := name[len(first) : len(name)-len(last)]
	for _, p := range pieces[1 : len(pieces)-1] {
		at := strings.Index(rest, p)
		if at < 0 {
			return false
		}
		rest = rest[at+len(p):]
	}
	return true
}

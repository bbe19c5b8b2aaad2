package toolcalls

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/policy"
)

// Fixed ids and lengths of spec §3.6.
const (
	strictMaxLen        = 40 // Azure's tool-call id limit
	strict9Len          = 9
	strictDefaultID     = "defaulttoolid"
	strictSanitizedID   = "sanitizedtoolid"
	strict9DefaultID    = "defaultid"
	strictHashPrefixLen = 32
	strictHashLen       = 8
	maxSuffixAttempt    = 999
)

// sha256Hex returns the lower-case hex SHA-256 of s.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// alnum returns s with every byte outside [A-Za-z0-9] removed: s itself
// when it has none, else one new string (the id rules sanitise every call
// and result id of a damaged history).
func alnum(s string) string {
	i := alnumPrefix(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) - 1)
	b.WriteString(s[:i])
	for i < len(s) { // s[i] is not alphanumeric: the run after it is kept
		i++
		run := alnumPrefix(s[i:])
		b.WriteString(s[i : i+run])
		i += run
	}
	return b.String()
}

// alnumPrefix returns the length of s's longest prefix of [A-Za-z0-9].
func alnumPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		if !alnumBytes[s[i]] {
			return i
		}
	}
	return len(s)
}

// alnumBytes marks the bytes of [A-Za-z0-9].
var alnumBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return t
}()

// isKimiNativeID reports whether id matches ^functions\.[A-Za-z0-9_-]+:\d+$,
// the native id form of Kimi models (for example functions.read:0).
func isKimiNativeID(id string) bool {
	const prefix = "functions."
	if len(id) <= len(prefix) || id[:len(prefix)] != prefix {
		return false
	}
	rest := id[len(prefix):]
	colon := -1
	for i := len(rest) - 1; i >= 0; i-- {
		if rest[i] == ':' {
			colon = i
			break
		}
	}
	if colon <= 0 || colon == len(rest)-1 {
		return false
	}
	for i := 0; i < colon; i++ {
		if c := rest[i]; !alnumBytes[c] && c != '_' && c != '-' {
			return false
		}
	}
	for i := colon + 1; i < len(rest); i++ {
		if c := rest[i]; c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// usedIDs is a set of ids already given out, which makeUnique and fitID
// keep new ids apart from.
type usedIDs interface{ taken(id string) bool }

// idSet is the plain usedIDs of a map.
type idSet map[string]struct{}

func (s idSet) taken(id string) bool { _, ok := s[id]; return ok }

// sanitizer computes the base id of spec §3.6 for one policy. keepKimi is set
// when native Kimi ids are kept in strict mode, which this package allows only
// when the target accepts them (IDLimits).
type sanitizer struct {
	mode     policy.IDMode
	keepKimi bool
}

// newSanitizer returns the sanitizer of a policy.
func newSanitizer(p policy.Policy) sanitizer {
	return sanitizer{mode: p.ToolCallIDMode, keepKimi: p.IDLimits.Valid("functions.read:0")}
}

// sanitize is the spec's sanitizeId(id, mode). The empty id gives the mode's
// default id.
func (s sanitizer) sanitize(id string) string {
	if s.mode == policy.IDModeStrict9 {
		if id == "" {
			return strict9DefaultID
		}
		a := alnum(id)
		switch {
		case len(a) >= strict9Len:
			return a[:strict9Len]
		case len(a) > 0:
			return sha256Hex(a)[:strict9Len]
		}
		return sha256Hex("sanitized")[:strict9Len]
	}
	if id == "" {
		return strictDefaultID
	}
	if s.keepKimi && isKimiNativeID(id) {
		return id
	}
	if a := alnum(id); a != "" {
		return a
	}
	return strictSanitizedID
}

// makeUnique is the spec's makeUnique(seed, used, mode): the sanitised seed
// when it is free, else hashed variants. OpenClaw's last resort is a
// timestamp; a rule here has no clock, so the hashed variants simply go on
// (attempt 1000, 1001, …) until one is free, which terminates because the
// set of used ids is finite.
func (s sanitizer) makeUnique(seed string, used usedIDs) string {
	base, ok := s.first(seed)
	if ok && !used.taken(base) {
		return base
	}
	if s.mode == policy.IDModeStrict9 {
		for i := 0; ; i++ {
			c := strict9Hashed(seed, i)
			if !used.taken(c) {
				return c
			}
		}
	}
	// A kept Kimi id that is taken continues as an ordinary strict id, so
	// the hashed variant is alphanumeric and a second run keeps it.
	base = truncate((sanitizer{mode: s.mode}).sanitize(seed), strictMaxLen)
	candidate := truncate(truncate(base, strictHashPrefixLen)+sha256Hex(seed)[:strictHashLen], strictMaxLen)
	if !used.taken(candidate) {
		return candidate
	}
	for n := 2; n <= maxSuffixAttempt; n++ {
		sfx := "x" + strconv.Itoa(n)
		c := truncate(candidate, strictMaxLen-len(sfx)) + sfx
		if !used.taken(c) {
			return c
		}
	}
	for n := maxSuffixAttempt + 1; ; n++ {
		c := truncate(base, strictHashPrefixLen) + sha256Hex(seed + ":" + strconv.Itoa(n))[:strictHashLen]
		if !used.taken(c) {
			return c
		}
	}
}

// first returns the id makeUnique tries first for seed, and whether it
// tries it: the sanitised seed cut to the strict length, or in strict9 the
// sanitised seed when it has nine characters. It reads no used set, so the
// collect phase computes it for every call in parallel.
func (s sanitizer) first(seed string) (string, bool) {
	if s.mode == policy.IDModeStrict9 {
		base := s.sanitize(seed)
		return base, len(base) == strict9Len
	}
	return truncate(s.sanitize(seed), strictMaxLen), true
}

// strict9Hashed is attempt i of strict9's hashed ids for seed.
func strict9Hashed(seed string, i int) string {
	return sha256Hex(seed + ":" + strconv.Itoa(i))[:strict9Len]
}

// validInMode reports whether id is already what the mode produces for a
// fresh id: [A-Za-z0-9]{1,40} in strict (or a kept Kimi id), exactly nine
// alphanumerics in strict9.
func (s sanitizer) validInMode(id string) bool {
	if id == "" {
		return false
	}
	if s.mode == policy.IDModeStrict9 {
		return len(id) == strict9Len && alnumPrefix(id) == len(id)
	}
	if s.keepKimi && isKimiNativeID(id) {
		return len(id) <= strictMaxLen
	}
	return len(id) <= strictMaxLen && alnumPrefix(id) == len(id)
}

// truncate cuts s to at most n bytes.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

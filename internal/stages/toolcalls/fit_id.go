package toolcalls

import (
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/contract"
)

// Bounds of fitID.
const (
	fitDefaultMaxLen = 64   // length cap when the target documents none
	fitHashLen       = 8    // hash characters appended to keep ids apart
	fitMaxAttempts   = 4096 // attempts before giving up on a pattern
)

// fitID builds an id the target accepts (lim.Valid) that is not in used, from
// seed: the seed's alphanumerics cut to the length limit when that is free,
// otherwise those alphanumerics cut shorter plus 8 hex characters of
// sha256(seed:fit:i) for i = 0, 1, …; for an exact length, hex characters
// only. Every documented pattern accepts alphanumerics, so this finds an id
// at once in practice; ok is false only for a pattern that rejects them.
func fitID(seed string, lim contract.IDLimits, used usedIDs) (id string, ok bool) {
	free := func(c string) bool {
		return !used.taken(c) && lim.Valid(c)
	}
	maxLen := lim.MaxLen
	if maxLen <= 0 {
		maxLen = fitDefaultMaxLen
	}
	a := alnum(seed)
	if lim.ExactLen == 0 && a != "" {
		if c := truncate(a, maxLen); free(c) {
			return c, true
		}
	}
	for i := 0; i < fitMaxAttempts; i++ {
		h := sha256Hex(seed + ":fit:" + strconv.Itoa(i))
		var c string
		switch {
		case lim.ExactLen > 0:
			for len(h) < lim.ExactLen {
				h += sha256Hex(h)
			}
			c = h[:lim.ExactLen]
		case maxLen <= fitHashLen:
			c = h[:maxLen]
		default:
			c = truncate(a, maxLen-fitHashLen) + h[:fitHashLen]
		}
		if free(c) {
			return c, true
		}
	}
	return "", false
}

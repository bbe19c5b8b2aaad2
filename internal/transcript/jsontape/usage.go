package jsontape

import "bytes"

// The plain usage: the shape an OpenClaw runtime writes an assistant's
// usage in (compact, its five counts as plain numbers, and a cost of its
// own five counts), read without building its members. The usage rule of
// package turns (spec §3.14) reads and completes a usage with it, and the
// scan records of each message whether its first usage is a whole one
// (NormalUsage, UsageWhole): the rule then leaves it, and a history
// whose every assistant has one, as it is, without reading it again. A
// whole plain usage is valid JSON, so the scan reads a message's usage
// once for both: its form, and, when whole, its validity (wholeUsageEnd).

// UsageCountKeys are the counts a usage object is completed with (the
// four token counts, then their total), CostCountKeys those of its cost.
var (
	UsageCountKeys = [5]string{"input", "output", "cacheRead", "cacheWrite", "totalTokens"}
	CostCountKeys  = [5]string{"input", "output", "cacheRead", "cacheWrite", "total"}
)

// AllCounts is the seen set (PlainCounts) of an object that has its five counts.
const AllCounts = 1<<len(UsageCountKeys) - 1

// PlainCounts reads the object at the start of raw as a plain usage is
// written: compact (no space), only the counts keys, each once and a plain
// number (plainNumber), and, when withCost, at most one cost member, an
// object of its five counts (CostCountKeys) written the same way; it returns what follows the
// object and the counts it has (seen, bit k for keys[k]), and, when values
// is not nil, the first four counts' values into it. ok is false when the
// object is not so written.
func PlainCounts(raw []byte, keys *[5]string, withCost bool, values *[4][]byte) (rest []byte, seen uint8, ok bool) {
	if len(raw) < 2 || raw[0] != '{' {
		return nil, 0, false
	}
	raw = raw[1:]
	cost := false
	for {
		if len(raw) == 0 || raw[0] != '"' {
			return nil, 0, false
		}
		end := bytes.IndexByte(raw[1:], '"')
		if end < 0 || len(raw) < end+3 || raw[end+2] != ':' {
			return nil, 0, false
		}
		key := raw[1 : end+1]
		raw = raw[end+3:]
		switch k := CountIndex(keys, key); {
		case k >= 0 && seen&(1<<k) == 0:
			seen |= 1 << k
			n := plainNumber(raw)
			if n == 0 {
				return nil, 0, false
			}
			if k < 4 && values != nil {
				values[k] = raw[:n]
			}
			raw = raw[n:]
		case k < 0 && withCost && !cost && string(key) == "cost":
			cost = true
			var costSeen uint8
			if raw, costSeen, ok = PlainCounts(raw, &CostCountKeys, false, nil); !ok || costSeen != AllCounts {
				return nil, 0, false
			}
		default:
			return nil, 0, false
		}
		if len(raw) == 0 {
			return nil, 0, false
		}
		switch raw[0] {
		case ',':
			raw = raw[1:]
		case '}':
			return raw[1:], seen, true
		default:
			return nil, 0, false
		}
	}
}

// plainNumber returns the length of the plain number at the start of raw,
// or 0: an optional minus, an integer part of at most 15 digits without a
// leading zero, an optional fraction of at most 20 digits, no exponent.
// Such a number is always finite: a reader of numbers reads it as one.
func plainNumber(raw []byte) int {
	start := 0
	if len(raw) > 0 && raw[0] == '-' {
		start = 1
	}
	i := digitsUpTo(raw, start, 15)
	if i == start || i-start > 1 && raw[start] == '0' {
		return 0
	}
	if i < len(raw) && raw[i] == '.' {
		end := digitsUpTo(raw, i+1, 20)
		if end == i+1 {
			return 0
		}
		i = end
	}
	return i
}

// digitsUpTo returns the index of the first byte at or after from that is
// not a decimal digit, looking at most most bytes.
func digitsUpTo(raw []byte, from, most int) int {
	end := min(len(raw), from+most)
	i := from
	for i < end && raw[i]-'0' < 10 {
		i++
	}
	return i
}

// CountIndex is key's place in keys, UsageCountKeys or CostCountKeys, or
// -1. A key of the input's bytes is compared as it is, not copied into a
// string. The two lists differ only in their last name, and their names
// differ in length but for "input" and "total": one compare tells.
func CountIndex[K string | []byte](keys *[5]string, key K) int {
	k := -1
	switch len(key) {
	case len("input"): // or "total"
		k = 4
		if key[0] == 'i' {
			k = 0
		}
	case len("output"):
		k = 1
	case len("cacheRead"):
		k = 2
	case len("cacheWrite"):
		k = 3
	case len("totalTokens"):
		k = 4
	default:
		return -1
	}
	if keys[k] != string(key) {
		return -1
	}
	return k
}

// wholeUsageEnd returns the index past the whole plain usage (NormalUsage)
// at data[i], and true; or false when none starts there.
func wholeUsageEnd(data []byte, i int) (int, bool) {
	rest, seen, ok := PlainCounts(data[i:], &UsageCountKeys, true, nil)
	if !ok || seen != AllCounts {
		return 0, false
	}
	return len(data) - len(rest), true
}

// NormalUsage reports whether raw, the value of a usage member, is a
// plain usage (PlainCounts) with its five counts and nothing after it:
// one the usage rule leaves as it is.
func NormalUsage(raw []byte) bool {
	rest, seen, ok := PlainCounts(raw, &UsageCountKeys, true, nil)
	return ok && len(rest) == 0 && seen == AllCounts
}

package turns

import (
	"context"
	"math"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// zeroUsage is the zeroed usage snapshot of spec §3.14.
const zeroUsage = `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`

// Usage is spec §3.14 (compaction usage hygiene, always on):
//   - when the history has a compactionSummary, every assistant whose usage
//     is an object and that is timestamped at or before the latest
//     compaction timestamp, or placed before the last compactionSummary
//     message, gets the zero usage snapshot;
//   - then every assistant's usage is normalised: a missing or non-object
//     usage becomes the zero snapshot; missing or non-number token counts
//     become 0; totalTokens is the given number or the sum of the four
//     counts; cost is kept and completed the same way (total = given or the
//     sum) when at least one of its five fields is a number, and is left out
//     of the normalised usage otherwise. Other members of usage are kept in
//     their places; a usage that already has these values is not touched.
func Usage() stage.Stage {
	const name = "usage"
	return stage.Stage{Name: name, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		comp := compactionOf(t.Messages)
		var sum usageCounts
		for _, c := range stage.ChunkResults(env, len(t.Messages), func(lo, hi int) usageCounts {
			return usageOf(t.Messages, lo, hi, comp)
		}) {
			sum.zeroed += c.zeroed
			sum.normalised += c.normalised
		}
		env.Report.Add(name, "zeroed", sum.zeroed)
		env.Report.Add(name, "normalised", sum.normalised)
		return nil
	}}
}

// usageCounts is what the usage rule changed in a run of messages.
type usageCounts struct{ zeroed, normalised int }

// usageOf applies the usage rule to the assistants among msgs[lo:hi]: each
// message alone, given the history's compaction (so chunks of a history
// can run in parallel).
func usageOf(msgs []*transcript.Message, lo, hi int, comp compaction) usageCounts {
	var n usageCounts
	for i := lo; i < hi; i++ {
		m := msgs[i]
		if m.Role() != transcript.RoleAssistant {
			continue
		}
		raw, has := m.Get("usage")
		valid, normal := scanUsage(raw, has)
		if !valid {
			m.Set("usage", []byte(zeroUsage))
			n.normalised++
			continue
		}
		if comp.stale(m, i) {
			if string(raw) != zeroUsage {
				m.Set("usage", []byte(zeroUsage))
				n.zeroed++
			}
			continue
		}
		if normal {
			continue // already normal: not parsed, not written
		}
		usage, _ := transcript.ParseObject(raw)
		if normaliseUsage(&usage) {
			m.Set("usage", usage.AppendJSON(make([]byte, 0, len(raw)+usageGrowth)))
			n.normalised++
		}
	}
	return n
}

// compaction locates the latest compaction of a history (spec §3.14).
type compaction struct {
	last        int   // index of the last compactionSummary, -1 when none
	boundary    int64 // newest parseable compactionSummary timestamp
	hasBoundary bool
}

func compactionOf(msgs []*transcript.Message) compaction {
	c := compaction{last: lastIndexOfRole(msgs, transcript.RoleCompactionSummary)}
	c.boundary, c.hasBoundary = latestCompaction(msgs)
	return c
}

// stale reports whether msgs[i] = m is history the compaction summarised:
// placed before the last compactionSummary, or timestamped at or before the
// newest compaction timestamp. Without a compactionSummary nothing is.
func (c compaction) stale(m *transcript.Message, i int) bool {
	if c.last < 0 {
		return false
	}
	if i < c.last {
		return true
	}
	ts, ok := m.Timestamp()
	return c.hasBoundary && ok && ts <= c.boundary
}

// normaliseUsage completes u in place and reports whether it changed.
func normaliseUsage(u *transcript.Object) bool {
	changed := completeCounts(u, []string{"input", "output", "cacheRead", "cacheWrite"}, "totalTokens")
	cost, ok := objectMember(u.Get("cost"))
	if !ok {
		return changed
	}
	finite := false
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "total"} {
		if _, ok := cost.Number(k); ok {
			finite = true
		}
	}
	if !finite {
		return u.Delete("cost") || changed
	}
	if completeCounts(&cost, []string{"input", "output", "cacheRead", "cacheWrite"}, "total") {
		costRaw, _ := u.Get("cost")
		u.Set("cost", cost.AppendJSON(make([]byte, 0, len(costRaw)+usageGrowth)))
		changed = true
	}
	return changed
}

// completeCounts sets each of parts that is not a number to 0, and total to
// the sum of parts when it is not a number. It reports whether it changed o.
func completeCounts(o *transcript.Object, parts []string, total string) bool {
	changed := false
	sum := 0.0
	for _, k := range parts {
		v, ok := o.Number(k)
		if !ok {
			changed = o.Set(k, []byte("0")) || changed
		}
		sum += v
	}
	if _, ok := o.Number(total); !ok {
		changed = o.Set(total, formatNumber(sum)) || changed
	}
	return changed
}

// formatNumber writes a sum as a JSON number (integers without a fraction).
func formatNumber(f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return []byte("0")
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(nil, int64(f), 10)
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64)
}

// usageGrowth is the room a normalised usage or cost is given beyond its
// input length, so that its encoding is one allocation: the members a
// normalisation appends ("totalTokens":N and a few zero counts).
const usageGrowth = 64

// usageCountKeys are the members normaliseUsage completes in a usage object
// (the four counts, then their total), costCountKeys those in its cost.
var (
	usageCountKeys = [...]string{"input", "output", "cacheRead", "cacheWrite", "totalTokens"}
	costCountKeys  = [...]string{"input", "output", "cacheRead", "cacheWrite", "total"}
)

// scanUsage reads a usage member (raw, has as Get returns them) in place,
// without parsing it into members: valid tells whether it is a JSON object,
// normal whether normaliseUsage would leave it as it is: the first of each of
// its five counts is a number, and its first cost, when that is an object,
// has all five of its own counts numbers too. Normal is conservative (a
// usage it does not prove normal is normalised the ordinary way, which may
// still find nothing to change), so the rule's output never depends on it;
// it spares the parse and the encoding of the usage most assistant turns of
// a clean history carry.
func scanUsage(raw []byte, has bool) (valid, normal bool) {
	if !has {
		return false, false
	}
	counts, costNormal := allNumbers(raw, usageCountKeys, "cost")
	if counts < 0 {
		return false, false
	}
	return true, counts == len(usageCountKeys) && costNormal
}

// allNumbers scans the JSON object raw: counts is how many of keys have a
// number as their first value (-1 when raw is not a valid object), and
// nestedNormal is false when the first member named nested is an object
// whose first values of costCountKeys are not all numbers.
func allNumbers(raw []byte, keys [5]string, nested string) (counts int, nestedNormal bool) {
	var seen [5]bool
	seenNested := false
	nestedNormal = true
	err := transcript.EachMember(raw, func(key string, value []byte) {
		if nested != "" && key == nested {
			if !seenNested && len(value) > 0 && value[0] == '{' {
				n, _ := allNumbers(value, costCountKeys, "")
				nestedNormal = n == len(costCountKeys)
			}
			seenNested = true
			return
		}
		for k := range keys {
			if keys[k] == key && !seen[k] {
				seen[k] = true
				if isNumber(value) {
					counts++
				}
			}
		}
	})
	if err != nil {
		return -1, false
	}
	return counts, nestedNormal
}

// isNumber reports whether a raw JSON value is a number transcript.Object's
// Number reads (a finite one).
func isNumber(v []byte) bool {
	if len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return false
	}
	_, err := strconv.ParseFloat(string(v), 64)
	return err == nil
}

// objectMember parses a member (raw, has as Get returns them) that should
// hold an object; ok is false when it is absent or not an object. An absent
// member is not parsed at all: most assistant turns of a history have no
// usage, and parsing nothing would build an error for each.
func objectMember(raw []byte, has bool) (transcript.Object, bool) {
	if !has {
		return transcript.Object{}, false
	}
	o, err := transcript.ParseObject(raw)
	return o, err == nil
}

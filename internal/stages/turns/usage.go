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
		usage, ok := objectMember(raw, has)
		if !ok {
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
		if normaliseUsage(&usage) {
			m.Set("usage", usage.AppendJSON(nil))
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
		u.Set("cost", cost.AppendJSON(nil))
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

package turns

import (
	"bytes"
	"context"
	"math"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
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
//
// A job whose every assistant has a whole plain usage (the decode's
// FactUsageOff is absent) and that has no compactionSummary leaves the
// rule nothing to do, and the runner skips it without a read.
func Usage() stage.Stage {
	return stage.Stage{Name: usageName, Needs: transcript.FactUsageOff | transcript.FactCompaction, Apply: applyUsage}
}

// usageName is Usage's name.
const usageName = "usage"

// applyUsage is Usage's Apply: a one-chunk job's pass allocates nothing of
// its own (stage.EachChunk).
func applyUsage(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	h := usageHistory{msgs: t.Messages, comp: compactionOf(env, t.Messages)}
	var sum usageCounts
	stage.EachChunk(env, len(t.Messages), h, usageOf, func(c usageCounts) {
		sum.zeroed += c.zeroed
		sum.normalised += c.normalised
	})
	env.Report.Add(usageName, "zeroed", sum.zeroed)
	env.Report.Add(usageName, "normalised", sum.normalised)
	if sum == (usageCounts{}) {
		env.NoEdit() // every write is counted: none, nothing edited
	}
	return nil
}

// usageCounts is what the usage rule changed in a run of messages.
type usageCounts struct{ zeroed, normalised int }

// usageHistory is what the usage rule reads of a history: its messages
// and its compaction.
type usageHistory struct {
	msgs []*transcript.Message
	comp compaction
}

// usageOf applies the usage rule to the assistants among h.msgs[lo:hi]:
// each message alone, given the history's compaction (so chunks of a
// history can run in parallel).
func usageOf(h usageHistory, lo, hi int) usageCounts {
	msgs, comp := h.msgs, h.comp
	var n usageCounts
	for i := lo; i < hi; i++ {
		m := msgs[i]
		if m.Role() != transcript.RoleAssistant || comp.last < 0 && m.UsageWhole() {
			continue // not an assistant, or a whole usage that nothing made stale: as it is
		}
		raw, has := m.Get("usage")
		var p plainUsage
		plain := has && p.read(raw)
		var room [usageRoom]field
		var u usageRead
		if !plain {
			var valid bool
			if u, valid = readUsage(room[:0], raw, has); !valid {
				m.Set("usage", []byte(zeroUsage))
				n.normalised++
				continue
			}
		}
		if comp.stale(m, i) {
			if string(raw) != zeroUsage {
				m.Set("usage", []byte(zeroUsage))
				n.zeroed++
			}
			continue
		}
		var out [usageBuffer]byte // written here, then copied at its length
		switch {
		case plain && p.normal(), !plain && u.normal():
			continue // already normal: not written
		case plain:
			m.Set("usage", bytes.Clone(p.appendNormal(out[:0], raw)))
		default:
			m.Set("usage", bytes.Clone(u.appendNormal(out[:0])))
		}
		n.normalised++
	}
	return n
}

// compaction locates the latest compaction of a history (spec §3.14).
type compaction struct {
	last        int   // index of the last compactionSummary, -1 when none
	boundary    int64 // newest parseable compactionSummary timestamp
	hasBoundary bool
}

// compactionOf finds the latest compaction of msgs. In a job the runner
// knows holds no compactionSummary (stage.Env.MayHold) it is none, without
// the two walks of the history that would find none.
func compactionOf(env *stage.Env, msgs []*transcript.Message) compaction {
	if !env.MayHold(transcript.FactCompaction) {
		return compaction{last: -1}
	}
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

// usageBuffer is the size of the stack buffer usageOf writes a normalised
// usage into before it copies it into one allocation of its length: room
// for OpenClaw's usage with its cost, whose normal form is about 200 bytes.
// A usage that outgrows it is written on the heap.
const usageBuffer = 512

// scanUsage reads a usage member (raw, has as Get returns them) in place,
// its members into a stack array (readUsage): valid tells whether it is a
// JSON object, normal whether it is already in normal form: the first of
// each of its five counts is a number, and its first cost, when that is an
// object, has all five of its own counts numbers too. A normal usage is
// left as it is, not encoded: the usage most assistant turns of a clean
// history carry. Any other is changed by appendNormalUsage. usageOf reads
// the members once for both.
func scanUsage(raw []byte, has bool) (valid, normal bool) {
	var room [usageRoom]field
	u, valid := readUsage(room[:0], raw, has)
	return valid, valid && u.normal()
}

// plainUsage is one read of a usage as the runtimes write it (read):
// compact (no space), only the five counts, each once and a plain number,
// and at most one cost, an object of its own five counts written the same
// way (jsontape.PlainCounts). It is the usage of nearly every assistant turn:
// OpenClaw writes all five counts and a complete cost, and a runtime that
// leaves totalTokens out writes the other four. usageOf so judges it, and
// completes it, without building its members (readUsage).
type plainUsage struct {
	seen   uint8     // the counts it has: bit k for jsontape.UsageCountKeys[k]
	counts [4][]byte // the first four counts' values, nil when absent
}

// read reads raw as a plain usage: false when it is not one (say, it has
// space, another member, an incomplete cost or a count that is not a
// plain number), which says nothing of its validity; usageOf then reads
// it the general way (readUsage). A plain usage is a valid object, and
// readUsage would find it normal exactly when normal says so.
func (p *plainUsage) read(raw []byte) bool {
	rest, seen, ok := jsontape.PlainCounts(raw, &jsontape.UsageCountKeys, true, &p.counts)
	p.seen = seen
	return ok && len(rest) == 0
}

// normal reports whether the plain usage has its five counts.
func (p *plainUsage) normal() bool { return p.seen == jsontape.AllCounts }

// appendNormal appends the normal form of raw, the plain usage p was read
// from, as usageRead.appendNormal writes it: raw as it is (its members are
// counts that are numbers, and its cost, if any, is complete), then the
// counts it lacks in their order, each 0, and totalTokens the sum of the
// four counts when it lacks that.
func (p *plainUsage) appendNormal(dst, raw []byte) []byte {
	dst = append(dst, raw[:len(raw)-1]...)
	for k, key := range jsontape.UsageCountKeys {
		if p.seen&(1<<k) != 0 {
			continue
		}
		dst = append(append(append(dst, ",\""...), key...), "\":"...)
		if k < 4 {
			dst = append(dst, '0')
			continue
		}
		sum := 0.0
		for _, v := range p.counts {
			if v != nil {
				n, _ := number(v)
				sum += n
			}
		}
		dst = appendNumber(dst, sum)
	}
	return append(dst, '}')
}

// field is one member of a usage or cost object.
type field struct {
	key   string
	value []byte
}

// usageRoom is the members a usage or cost is read into without an
// allocation: its five counts, a cost and a few more; a cost's members go
// in the room its usage's leave.
const usageRoom = 12

// usageFields appends the members of raw (as Get returns it: has is false
// when absent) to dst, reading it once; valid is false when it is not a
// JSON object.
func usageFields(dst []field, raw []byte, has bool) (fields []field, valid bool) {
	if !has {
		return dst, false
	}
	err := transcript.EachMember(raw, func(key string, value []byte) {
		dst = append(dst, field{key, value})
	})
	return dst, err == nil
}

// usageRead is one read of a valid usage object (readUsage): its members
// and their counts, and those of its first cost when that is an object.
// The check for normal form and the normal form's encoding both take them
// from here, so a usage, and its cost, is parsed and its numbers read once.
type usageRead struct {
	fields     []field
	counts     counts
	hasCost    bool    // the first cost member is an object
	cost       []field // its members
	costCounts counts
}

// readUsage reads a usage member (raw, has as Get returns them) into
// room, its cost's members after its own: valid is false when it is not a
// JSON object.
func readUsage(room []field, raw []byte, has bool) (u usageRead, valid bool) {
	u.fields, valid = usageFields(room, raw, has)
	if !valid {
		return u, false
	}
	u.counts = countsOf(u.fields, &jsontape.UsageCountKeys)
	for _, f := range u.fields {
		if f.key == "cost" {
			if u.hasCost = len(f.value) > 0 && f.value[0] == '{'; u.hasCost {
				u.cost, _ = usageFields(u.fields[len(u.fields):len(u.fields):cap(u.fields)], f.value, true)
				u.costCounts = countsOf(u.cost, &jsontape.CostCountKeys)
			}
			break
		}
	}
	return u, true
}

// normal reports whether the usage is in normal form (scanUsage).
func (u *usageRead) normal() bool {
	return u.counts.complete() && (!u.hasCost || u.costCounts.complete())
}

// number is a raw JSON value's value when it is a number transcript.Object's
// Number reads (a finite one), and false with 0 otherwise.
// A count of at most 15 digits without sign, fraction or exponent (what
// usage counts nearly always are) is read digit by digit, exactly as
// strconv.ParseFloat reads it; any other through ParseFloat.
func number(v []byte) (float64, bool) {
	if len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return 0, false
	}
	if len(v) <= 15 && (v[0] != '0' || len(v) == 1) {
		n := 0
		for _, c := range v {
			if c < '0' || c > '9' {
				n = -1
				break
			}
			n = n*10 + int(c-'0')
		}
		if n >= 0 {
			return float64(n), true
		}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// counts is what a read of a usage or cost object found of its five counts
// (jsontape.UsageCountKeys or CostCountKeys), each by its first member: whether it
// is a number, and its value (0 when not).
type counts struct {
	number [5]bool
	value  [5]float64
}

// countsOf reads the counts (keys) of an object's members, each by its
// first member.
func countsOf(fields []field, keys *[5]string) (c counts) {
	var seen [5]bool
	for _, f := range fields {
		if k := jsontape.CountIndex(keys, f.key); k >= 0 && !seen[k] {
			seen[k] = true
			c.value[k], c.number[k] = number(f.value)
		}
	}
	return c
}

// any reports whether one of the counts is a number.
func (c *counts) any() bool { return c.number != [5]bool{} }

// complete reports whether all five counts are numbers.
func (c *counts) complete() bool { return c.number == [5]bool{true, true, true, true, true} }

// appendNormalUsage appends the normal form of raw, a valid JSON usage
// object scanUsage found not normal (usageRead.appendNormal).
func appendNormalUsage(dst, raw []byte) []byte {
	var room [usageRoom]field
	u, _ := readUsage(room[:0], raw, true)
	return u.appendNormal(dst)
}

// appendNormal appends the usage's normal form (spec §3.14): its members
// in their order, compact, each key re-encoded; the first of each count
// that is not a number becomes 0, and a total that is not a number the sum
// of the four counts; the counts it lacks are appended in their order,
// then the total. Its first cost, when an object, is dropped when none of
// its five counts is a number, and otherwise completed the same way when
// it is not already complete (kept as its bytes when it is).
func (u *usageRead) appendNormal(dst []byte) []byte {
	return appendCompleted(dst, u.fields, &u.counts, &jsontape.UsageCountKeys, u)
}

// appendCompleted appends the valid JSON object of these members, whose
// counts (keys) are c, with its counts completed, as appendNormal says;
// cost, when set, is the usage whose first cost member is completed as a
// cost (nil: the object is a cost).
func appendCompleted(dst []byte, fields []field, c *counts, keys *[5]string, cost *usageRead) []byte {
	sum := 0.0
	for k := range 4 {
		sum += c.value[k]
	}
	var seen [5]bool
	seenCost := false
	dst = append(dst, '{')
	first := true
	member := func(dst []byte, key string) []byte {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		return append(transcript.AppendString(dst, key), ':')
	}
	for _, f := range fields {
		if k := jsontape.CountIndex(keys, f.key); k >= 0 && !seen[k] {
			seen[k] = true
			dst = member(dst, f.key)
			switch {
			case c.number[k]:
				dst = append(dst, f.value...)
			case k == 4:
				dst = appendNumber(dst, sum)
			default:
				dst = append(dst, '0')
			}
			continue
		}
		if cost != nil && f.key == "cost" && !seenCost {
			seenCost = true
			if cost.hasCost {
				if !cost.costCounts.any() {
					continue // a cost without a number is dropped
				}
				if !cost.costCounts.complete() {
					dst = member(dst, f.key)
					dst = appendCompleted(dst, cost.cost, &cost.costCounts, &jsontape.CostCountKeys, nil)
					continue
				}
			}
		}
		dst = member(dst, f.key)
		dst = append(dst, f.value...)
	}
	for k := range keys {
		if !seen[k] {
			dst = member(dst, keys[k])
			if k == 4 {
				dst = appendNumber(dst, sum)
			} else {
				dst = append(dst, '0')
			}
		}
	}
	return append(dst, '}')
}

// appendNumber writes a sum as a JSON number (integers without a fraction).
func appendNumber(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, '0')
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}

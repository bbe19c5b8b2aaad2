package pairing

import (
	"bytes"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// failedPolicy says what the repair does with an assistant turn that stopped
// with "error" or "aborted" (spec §3.7 erroredAssistantResultPolicy).
type failedPolicy uint8

const (
	// dropFailed removes the failed turn and its results; its frame's other
	// messages stay. sanitizeSessionHistory passes it, and so do all stages.
	dropFailed failedPolicy = iota
	// preserveFailed keeps the failed turn with the real results it has, and
	// makes no synthetic result for it (the function's own default in
	// OpenClaw; here only reachable from tests).
	preserveFailed
)

// repairOptions configure one run of the pairing repair.
type repairOptions struct {
	text   string // text of a synthetic missing result
	failed failedPolicy
	nowMs  int64 // the runner's clock, when hasNow
	hasNow bool
}

// repairCounts say what one run changed; they go into the report.
type repairCounts struct {
	synthetic     int // synthetic missing results inserted
	moved         int // results emitted somewhere else than they were
	orphan        int // results dropped: no call, or an ambiguous one
	duplicate     int // results dropped: their call already had a result
	replaced      int // synthetic results discarded for a real one
	failedTurns   int // failed assistant turns removed (drop policy)
	failedResults int // results removed with a failed turn
	renamed       int // result toolName set from the call or trimmed
	adopted       int // legacy id-less results given their call's id
	nulls         int // null entries dropped inside frames
}

// report adds the counts to the report under the stage's name.
func (c repairCounts) report(r *stage.Report, name string) {
	r.Add(name, "synthetic", c.synthetic)
	r.Add(name, "moved", c.moved)
	r.Add(name, "orphan", c.orphan)
	r.Add(name, "duplicate", c.duplicate)
	r.Add(name, "synthetic_replaced", c.replaced)
	r.Add(name, "failed_turn", c.failedTurns)
	r.Add(name, "failed_turn_result", c.failedResults)
	r.Add(name, "renamed", c.renamed)
	r.Add(name, "adopted", c.adopted)
	r.Add(name, "null_dropped", c.nulls)
}

// Message kinds, as the repair sees them.
const (
	kindOther  uint8 = iota // kept in its frame's remainder
	kindNull                // a JSON null entry: dropped inside frames
	kindResult              // a toolResult
	kindFrame               // an assistant with at least one tool call
)

// occurrence is one tool call of a frame. Duplicate ids within one turn are
// separate occurrences.
type occurrence struct {
	rawID  string // the call's id as written (emitted on synthetic results)
	key    string // the trimmed id, used for matching
	call   *transcript.Block // the call block, for its name when needed
	result int32  // index into the run's results; -1 when it has none
}

// name returns the call's trimmed name ("" when it has none).
func (oc *occurrence) name() string {
	s, _ := oc.call.String("name")
	return strings.TrimSpace(s)
}

// resultRef is a tool result that an occurrence holds.
type resultRef struct {
	msg       int32  // its index in the input
	key       string // trimmed id, or the adopted call's key; "" when id-less
	idless    bool   // no id and not adopted: never displaced across frames
	synthetic bool
	adopt     bool // legacy id-less adoption: write toolCallId and isError
	moved     bool // a remainder message preceded it, or it came from a later frame
}

// frame is an assistant with tool calls and the messages up to the next one.
type frame struct {
	msg, end   int32 // the assistant's index; the end of the frame (exclusive)
	occ0, occ1 int32 // its occurrences
	failed     bool  // stopReason error or aborted
}

// repair runs the occurrence-based pairing repair of spec §3.7 over msgs. It
// returns msgs itself when no entry was added, removed or moved (results may
// still have been edited in place; the counts say so). The run is linear in
// the number of messages and blocks: frames are indexed by id, and results
// displaced across frames are matched through per-id pools.
func repair(msgs []*transcript.Message, opts repairOptions) ([]*transcript.Message, repairCounts) {
	var c repairCounts
	n := len(msgs)
	kinds := make([]uint8, n)
	frames := make([]frame, 0, n/8)
	occs := make([]occurrence, 0, n/8)
	for i, m := range msgs {
		if !m.IsObject() {
			if bytes.Equal(m.Raw(), []byte("null")) {
				kinds[i] = kindNull
			}
			continue
		}
		switch roleOf(m) {
		case roleResult:
			kinds[i] = kindResult
		case roleAssistant:
			calls := m.ToolCalls()
			if len(calls) == 0 {
				continue
			}
			kinds[i] = kindFrame
			f := frame{msg: int32(i), occ0: int32(len(occs))}
			for _, b := range calls {
				id, _ := b.CallID()
				occs = append(occs, occurrence{rawID: id, key: strings.TrimSpace(id), call: b, result: -1})
			}
			f.occ1 = int32(len(occs))
			f.failed = failedTurn(m)
			frames = append(frames, f)
		}
	}
	for fi := range frames {
		frames[fi].end = int32(n)
		if fi+1 < len(frames) {
			frames[fi].end = frames[fi+1].msg
		}
	}

	results := claimAndDisplace(msgs, kinds, frames, occs, &c)
	return emit(msgs, kinds, frames, occs, results, opts, &c), c
}

// claimAndDisplace does steps 2 and 3 of spec §3.7: every frame claims the
// results inside it (FIFO per id), and the results no occurrence of their
// own frame could take move back to a single earlier owner, or are dropped.
func claimAndDisplace(msgs []*transcript.Message, kinds []uint8, frames []frame, occs []occurrence, c *repairCounts) []resultRef {
	var results []resultRef
	var unclaimed []resultRef
	pools := map[string]*pool{}
	var idx frameIndex
	for fi := range frames {
		f := &frames[fi]
		idx.reset(occs, f.occ0, f.occ1)
		unclaimed = unclaimed[:0]
		seenRemainder := false
		for i := f.msg + 1; i < f.end; i++ {
			switch kinds[i] {
			case kindNull:
				continue
			case kindResult:
			default:
				seenRemainder = true
				continue
			}
			m := msgs[i]
			ref := resultRef{msg: i, moved: seenRemainder, synthetic: isSynthetic(m)}
			var hasID bool
			ref.key, hasID = m.ResultID()
			if !hasID {
				if f.occ1-f.occ0 == 1 && adoptable(m, &occs[f.occ0]) {
					ref.key, ref.adopt = occs[f.occ0].key, true
				} else {
					ref.idless = true
				}
			}
			if o := idx.claim(ref.key, occs); o >= 0 {
				occs[o].result = int32(len(results))
				results = append(results, ref)
				continue
			}
			if !idx.has(ref.key, occs) {
				unclaimed = append(unclaimed, ref)
				continue
			}
			if !ref.synthetic {
				if o := idx.syntheticHolder(ref.key, occs, results); o >= 0 {
					occs[o].result = int32(len(results))
					results = append(results, ref)
					c.replaced++
					continue
				}
			}
			c.duplicate++
		}
		for o := f.occ0; o < f.occ1; o++ {
			oc := &occs[o]
			if oc.key == "" {
				continue // only id-less results match it, and they never move
			}
			if oc.result < 0 {
				poolFor(pools, oc.key).addNone(o)
			} else if results[oc.result].synthetic {
				poolFor(pools, oc.key).addSynthetic(o)
			}
		}
		for _, ref := range unclaimed {
			p := pools[ref.key]
			if ref.idless || p == nil {
				c.orphan++
				continue
			}
			o := p.take(ref.synthetic, occs, results)
			if o < 0 {
				c.orphan++
				continue
			}
			if occs[o].result >= 0 {
				c.replaced++
			}
			ref.moved = true
			occs[o].result = int32(len(results))
			results = append(results, ref)
		}
	}
	return results
}

// emit does step 4 of spec §3.7 and returns the new message list, or msgs
// itself when it is element-wise the same.
func emit(msgs []*transcript.Message, kinds []uint8, frames []frame, occs []occurrence, results []resultRef, opts repairOptions, c *repairCounts) []*transcript.Message {
	n := len(msgs)
	first := n
	if len(frames) > 0 {
		first = int(frames[0].msg)
	}
	out := make([]*transcript.Message, 0, n)
	for i := 0; i < first; i++ {
		if kinds[i] == kindResult {
			c.orphan++
			continue
		}
		out = append(out, msgs[i])
	}
	var content []byte
	for fi := range frames {
		f := &frames[fi]
		a := msgs[f.msg]
		if f.failed && opts.failed == dropFailed {
			c.failedTurns++
			for o := f.occ0; o < f.occ1; o++ {
				if occs[o].result >= 0 {
					c.failedResults++
				}
			}
		} else {
			out = append(out, a)
			c.moved += countMoved(occs[f.occ0:f.occ1], results)
			for o := f.occ0; o < f.occ1; o++ {
				oc := &occs[o]
				if oc.result >= 0 {
					ref := &results[oc.result]
					m := msgs[ref.msg]
					fixResult(m, oc, ref, c)
					out = append(out, m)
					continue
				}
				if f.failed {
					continue // preserve policy: a failed turn gets no synthetic
				}
				if content == nil {
					content = syntheticContent(opts.text)
				}
				ts, hasTS := opts.nowMs, opts.hasNow
				if !hasTS {
					ts, hasTS = a.Timestamp()
				}
				out = append(out, newSynthetic(oc.rawID, oc.name(), content, ts, hasTS))
				c.synthetic++
			}
		}
		for i := f.msg + 1; i < f.end; i++ {
			switch kinds[i] {
			case kindOther:
				out = append(out, msgs[i])
			case kindNull:
				c.nulls++
			}
		}
	}
	if len(out) == n {
		same := true
		for i := range out {
			if out[i] != msgs[i] {
				same = false
				break
			}
		}
		if same {
			return msgs
		}
	}
	return out
}

// countMoved counts the results of one frame that end up somewhere else
// than they were: those that came from a later frame or after a non-result
// message of their frame, and those that jump ahead of a result that was
// before them in the input. Synthetic insertions and dropped duplicates
// shift results without counting as a move.
func countMoved(occs []occurrence, results []resultRef) int {
	n := 0
	later := int32(1<<31 - 1) // the smallest input index emitted after this one
	for i := len(occs) - 1; i >= 0; i-- {
		if occs[i].result < 0 {
			continue
		}
		ref := &results[occs[i].result]
		if ref.moved || later < ref.msg {
			n++
		}
		later = min(later, ref.msg)
	}
	return n
}

// adoptable reports whether an id-less result may adopt the id of its
// frame's single call (spec §3.7 legacy id-less result): its trimmed
// toolName is blank, or the call's name is blank, or the two are equal.
func adoptable(m *transcript.Message, oc *occurrence) bool {
	name, _ := m.String("toolName")
	name = strings.TrimSpace(name)
	callName := oc.name()
	return name == "" || callName == "" || name == callName
}

// fixResult applies the per-result edits of spec §3.7 to an emitted result:
// legacy adoption (toolCallId and isError) and toolName normalisation.
func fixResult(m *transcript.Message, oc *occurrence, ref *resultRef, c *repairCounts) {
	if ref.adopt {
		a := setIfDifferent(m, "toolCallId", transcript.JSONString(oc.rawID))
		b := setIfDifferent(m, "isError", []byte("true"))
		if a || b {
			c.adopted++
		}
	}
	if raw, _ := m.Get("toolName"); plainName(raw) {
		return // a non-blank, untrimmed-free name without escapes: nothing to do
	}
	name, isString := m.String("toolName")
	trimmed := strings.TrimSpace(name)
	var want string
	switch {
	case trimmed != "":
		want = trimmed
	case oc.name() != "":
		want = oc.name()
	case isString:
		want = "unknown"
	default:
		return // no name anywhere, and none was given: leave it absent
	}
	if setIfDifferent(m, "toolName", transcript.JSONString(want)) {
		c.renamed++
	}
}

// plainName reports whether a raw toolName is a non-empty JSON string
// without escapes and without white space at either end, so that the name
// normalisation keeps it as it is.
func plainName(raw []byte) bool {
	if len(raw) < 3 || raw[0] != '"' || raw[len(raw)-1] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return false
	}
	return !isSpaceByte(raw[1]) && !isSpaceByte(raw[len(raw)-2])
}

// isSpaceByte reports whether c is ASCII white space, or may start a
// multi-byte character that strings.TrimSpace could remove.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c >= 0x80
}

// setIfDifferent sets a member unless it already has exactly these bytes,
// and reports whether it changed anything.
func setIfDifferent(m *transcript.Message, key string, raw []byte) bool {
	if cur, ok := m.Get(key); ok && bytes.Equal(cur, raw) {
		return false
	}
	m.Set(key, raw)
	return true
}

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
// separate occurrences. One is kept per call of the history; its size is
// pinned by TestRecordSizes.
type occurrence struct {
	rawID  string            // the call's id as written (emitted on synthetic results)
	key    string            // the trimmed id, used for matching
	call   *transcript.Block // the call block, for its name when needed
	result int32             // index into the run's results; -1 when it has none
}

// name returns the call's trimmed name ("" when it has none).
func (oc *occurrence) name() string {
	s, _ := oc.call.String("name")
	return strings.TrimSpace(s)
}

// resultRef is a tool result that an occurrence holds. One is kept per
// result of the history: its flags share a word with msg, and its size is
// pinned by TestRecordSizes.
type resultRef struct {
	key       string // trimmed id, or the adopted call's key; "" when id-less
	rawID     string // its id as written ("" when id-less)
	msg       int32  // its index in the input
	idless    bool   // no id and not adopted: never displaced across frames
	synthetic bool
	adopt     bool // legacy id-less adoption: write toolCallId and isError
	plainName bool // its toolName needs no normalisation (transcript.KeptToolName)
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
// the number of messages and blocks, and reads each message once: frames are
// indexed by id while the messages stream past, and results displaced across
// frames are matched through per-id pools when their frame closes.
func repair(msgs []*transcript.Message, opts repairOptions) ([]*transcript.Message, repairCounts) {
	s := analyze(msgs, nil)
	return s.emit(opts), s.c
}

// analyze runs steps 1 to 3 of the repair over msgs; it reads the messages
// and changes none of them (emit does). earlier seeds the pools with the
// calls that earlier segments left pending, by id (nil for a whole run).
func analyze(msgs []*transcript.Message, earlier map[string]pendingCount) *repairState {
	n := len(msgs)
	frames, calls, results := countEntries(msgs)
	s := &repairState{
		msgs:    msgs,
		kinds:   make([]uint8, n),
		frames:  make([]frame, 0, frames),
		occs:    make([]occurrence, 0, calls),
		results: make([]resultRef, 0, results),
		pools:   make(map[string]*pool, len(earlier)),
	}
	for id, pc := range earlier {
		s.pools[id] = &pool{nNone: pc.none, nSyn: pc.synthetic}
	}
	for i, m := range msgs {
		s.add(int32(i), m)
	}
	s.closeFrame(int32(n))
	return s
}

// countEntries bounds what analyze records of msgs: a frame per assistant
// with a tool-call block, an occurrence per such block, a result per tool
// result. Sized by it, the arrays are never regrown: each growth was a
// copy, and the old array garbage (8 of the 15 MB a clean 100k-message
// history's pairing allocated, sized for a call in every fourth message).
func countEntries(msgs []*transcript.Message) (frames, calls, results int) {
	for _, m := range msgs {
		switch roleOf(m) {
		case roleResult:
			results++
		case roleAssistant:
			blocks, _ := m.Blocks()
			c := 0
			for _, b := range blocks {
				if b.IsToolCall() {
					c++
				}
			}
			if c > 0 {
				frames++
				calls += c
			}
		}
	}
	return frames, calls, results
}

// repairState is one run of the repair: steps 1 to 3 of spec §3.7 happen as
// the messages are added in order, step 4 in emit.
type repairState struct {
	msgs      []*transcript.Message
	kinds     []uint8
	frames    []frame
	occs      []occurrence
	results   []resultRef
	unclaimed []resultRef // results of the open frame that none of its calls took
	// reachedBack is set when a displaced result's one candidate is a call
	// of an earlier segment (see repairChunked).
	reachedBack bool
	lookups     []poolLookup // every match of a displaced result against a pool
	pools       map[string]*pool
	synced      int32      // occurrences before this one are in the pools
	idx         frameIndex // the open frame's calls
	remainder   bool       // a non-result message came since the open frame began
	c           repairCounts
}

// add classifies message i and, inside a frame, claims it when it is a
// result (step 2). An assistant with calls closes the open frame and opens
// its own (step 1).
func (s *repairState) add(i int32, m *transcript.Message) {
	if !m.IsObject() {
		if bytes.Equal(m.Raw(), []byte("null")) {
			s.kinds[i] = kindNull
			return
		}
		s.remainder = true
		return
	}
	switch roleOf(m) {
	case roleResult:
		s.kinds[i] = kindResult
		if len(s.frames) > 0 {
			s.claim(i, m)
		}
		return
	case roleAssistant:
		if calls := m.ToolCalls(); len(calls) > 0 {
			s.closeFrame(i)
			s.kinds[i] = kindFrame
			f := frame{msg: i, occ0: int32(len(s.occs)), failed: failedTurn(m)}
			for _, b := range calls {
				id, _ := b.CallID()
				s.occs = append(s.occs, occurrence{rawID: id, key: transcript.TrimID(id), call: b, result: -1})
			}
			f.occ1 = int32(len(s.occs))
			s.frames = append(s.frames, f)
			s.idx.reset(s.occs, f.occ0, f.occ1)
			s.remainder = false
			return
		}
	}
	s.remainder = true
}

// claim gives result i to the earliest unclaimed call of its id in the open
// frame, lets a real duplicate replace a synthetic one, drops any other
// duplicate, and keeps the rest for displacement when the frame closes.
func (s *repairState) claim(i int32, m *transcript.Message) {
	f := &s.frames[len(s.frames)-1]
	ref := resultRef{msg: i, moved: s.remainder, synthetic: isSynthetic(m)}
	raw, _ := m.Get("toolName")
	ref.plainName = transcript.KeptToolName(raw)
	var hasID bool
	ref.key, hasID = m.ResultID()
	ref.rawID = m.RawResultID()
	if !hasID {
		if f.occ1-f.occ0 == 1 && adoptable(m, &s.occs[f.occ0]) {
			ref.key, ref.adopt = s.occs[f.occ0].key, true
		} else {
			ref.idless = true
		}
	}
	if o := s.idx.claim(ref.key, s.occs); o >= 0 {
		s.hold(o, ref)
		return
	}
	if !s.idx.has(ref.key, s.occs) {
		s.unclaimed = append(s.unclaimed, ref)
		return
	}
	if !ref.synthetic {
		if o := s.idx.syntheticHolder(ref.key, s.occs, s.results); o >= 0 {
			s.hold(o, ref)
			s.c.replaced++
			return
		}
		// An exact id match wins over a legacy id-less adoption: the
		// id-less result that came first and adopted the call's id is the
		// duplicate, not this one, which carries the id (issue 16: a real
		// result was lost). Only adoption yields: a result that matched
		// after trimming (" X ", "\uFEFFX") made the first claim, and the
		// first claim is kept, as OpenClaw keeps it (spec §3.7 step 2,
		// FIFO per id; issue 20).
		if o := s.idx.adoptedHolder(ref.key, ref.rawID, s.occs, s.results); o >= 0 {
			s.hold(o, ref)
		}
	}
	s.c.duplicate++
}

// syncPools adds the calls of closed frames up to occurrence end to the
// pools. It runs only when a displaced result needs them, so a history
// without displaced results does no map work; a call's state cannot change
// between its frame's close and the sync, because only pools reach it then.
func (s *repairState) syncPools(end int32) {
	for o := s.synced; o < end; o++ {
		oc := &s.occs[o]
		if oc.key == "" {
			continue // only id-less results match it, and they never move
		}
		if oc.result < 0 {
			poolFor(s.pools, oc.key).addNone(o)
		} else if s.results[oc.result].synthetic {
			poolFor(s.pools, oc.key).addSynthetic(o)
		}
	}
	s.synced = end
}

// hold makes ref the result of occurrence o.
func (s *repairState) hold(o int32, ref resultRef) {
	s.occs[o].result = int32(len(s.results))
	s.results = append(s.results, ref)
}

// closeFrame ends the open frame at end (step 3): its calls without a real
// result join the pools, and each result none of its calls took moves back
// to the single call that can take it, or is dropped as an orphan.
func (s *repairState) closeFrame(end int32) {
	if len(s.frames) == 0 {
		return
	}
	f := &s.frames[len(s.frames)-1]
	f.end = end
	if len(s.unclaimed) > 0 {
		s.syncPools(f.occ1)
	}
	for _, ref := range s.unclaimed {
		p := s.pools[ref.key]
		if !ref.idless {
			s.lookups = append(s.lookups, lookupOf(p, ref))
		}
		if ref.idless || p == nil {
			s.c.orphan++
			continue
		}
		o := p.take(ref.synthetic, s.occs, s.results)
		if o < 0 {
			s.reachedBack = s.reachedBack || o == earlierCall
			s.c.orphan++
			continue
		}
		if s.occs[o].result >= 0 {
			s.c.replaced++
		}
		ref.moved = true
		s.hold(o, ref)
	}
	s.unclaimed = s.unclaimed[:0]
}

// emit does step 4 of spec §3.7 and returns the new message list, or the
// input itself when it is element-wise the same.
func (s *repairState) emit(opts repairOptions) []*transcript.Message {
	msgs, kinds, frames, occs, results, c := s.msgs, s.kinds, s.frames, s.occs, s.results, &s.c
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
	if ref.plainName {
		return // a non-blank, trimmed name without escapes: nothing to do
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
	if isString && name == want {
		return // the name it has, however its bytes spell it (an escape, or text the decode keeps as read)
	}
	if setIfDifferent(m, "toolName", transcript.JSONString(want)) {
		c.renamed++
	}
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

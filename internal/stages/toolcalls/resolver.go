package toolcalls

import (
	"fmt"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
)

// Result states of an occurrence, as pairing repair sees them.
const (
	noResult uint8 = iota
	syntheticResult
	realResult
)

// none marks the end of an index list of the resolver's slabs.
const none int32 = -1

// occurrence is one tool call of the history and the id it was given. The
// resolver keeps them in one slab in call order and links them by index, so
// the id pass allocates a few slices, not objects per call.
type occurrence struct {
	id    string
	raw   string // the call's id as written
	state uint8
	// nextSame is the next occurrence of the same trimmed id in call order,
	// nextSyn the next entry of the key's synthetic-result queue.
	nextSame, nextSyn int32
}

// resultRef is one tool result as the resolver sees it.
type resultRef struct {
	raw  string // its id as written, as pairing reads it (RawResultID)
	real bool   // false for a synthetic missing result
	// callIDOnly is resultIDs.callIDOnly: the rewrite leaves the result
	// unread when it resolves to raw. The resolver does not read it; it
	// sits here, in the padding after real, so that a result site stays
	// 72 bytes (TestSiteSizes).
	callIDOnly bool
}

// keyState is everything the resolver knows about one trimmed call id. Its
// lists are indexes into the resolver's occurrence slab (none: empty). The
// occurrences of one key are linked in call order (nextSame), so the
// occurrences of the current frame are the tail of that list from cur.
type keyState struct {
	noneHead         int32 // first occurrence that may still have no result (lazy FIFO)
	synHead, synTail int32 // FIFO of occurrences holding a synthetic result (lazy)
	last             int32 // last occurrence, where the next one is linked
	cntNone, cntSyn  int32 // unresolved occurrences: no result / a synthetic one
	frame            int32 // the frame cur belongs to
	cur              int32 // first occurrence of that frame
	next, synNext    int32 // first unclaimed / first synthetic-holding occurrence of the frame
	orphans          int32 // orphan results seen (spec orphanOcc)
	occ              int32 // calls whose raw id is exactly this key (spec occ)
	isCall           bool  // some call of the history carries this id
	used             bool  // this id is given out (or reserved)
}

// resolver is the occurrence-aware id resolver of spec §3.6, extended so
// that a result always receives the id of the very call that pairing repair
// (§3.7) would pair it with by raw id: in-frame claims first (earliest
// unclaimed occurrence), in-frame duplicates the id of an occurrence they
// would duplicate, displaced results the id of their single unresolved
// candidate in this or an earlier frame, and every other result (before the
// first frame, ambiguous, or matching nothing) an orphan id that no call
// uses. Where OpenClaw's plain per-id FIFO would hand a later repeated call's
// result the id of an earlier unanswered occurrence, this one does not, so
// id rewriting never changes which call a result belongs to.
//
// It runs on the sites the collect phase found (callSite, resultSite), whose
// ids are already interned (keyTable), so a call that keeps its id or takes
// its sanitised id costs no look-up.
type resolver struct {
	san         sanitizer
	limits      contract.IDLimits
	nativeToolu bool
	openaiDup   bool
	rawOcc      map[string]int // occurrences of raw ids with surrounding space
	// keys maps every trimmed id of the history, every sanitised id the
	// collect phase computed and every id given out to its state. A state
	// of an id that no call or result carries is the same as none.
	keys   *keyTable
	states []keyState
	occs   []occurrence
	frame  int32
	err    error // the first id the target accepts that could not be built
}

// newResolver returns the resolver of one pass over the interned ids of
// keys (size states) and calls calls.
func newResolver(p policy.Policy, keys *keyTable, size int32, calls int) *resolver {
	r := &resolver{
		san:         newSanitizer(p),
		limits:      p.IDLimits,
		nativeToolu: p.PreserveNativeAnthropicToolUseIDs,
		openaiDup:   p.DuplicateToolCallIDStyle == "openai",
		rawOcc:      map[string]int{},
		keys:        keys,
	}
	r.states, r.occs = takeResolverArrays(size, calls)
	return r
}

// emptyKey is the state of an id nothing has touched.
var emptyKey = keyState{noneHead: none, synHead: none, synTail: none, last: none, frame: -1, cur: none, next: none, synNext: none}

// key returns the index of the state of an id, creating it.
func (r *resolver) key(k string) int32 {
	if ki, ok := r.keys.lookup(k); ok {
		return ki
	}
	ki := int32(len(r.states))
	r.states = append(r.states, emptyKey)
	r.keys.add(k, ki)
	return ki
}

// reserve marks an id of a preserved signed turn as taken before the pass.
func (r *resolver) reserve(id string) { r.markUsed(id) }

// markUsed records that id is given out. (The index is taken first: key
// may grow the slab.)
func (r *resolver) markUsed(id string) {
	ki := r.key(id)
	r.states[ki].used = true
}

// startFrame begins the frame of an assistant that has tool calls.
func (r *resolver) startFrame() { r.frame++ }

// call assigns the id of tool call c, the next call of the history, to its
// occurrence (appended to r.occs). A preserved call keeps its raw id
// (already reserved).
func (r *resolver) call(c *callSite) {
	raw := c.raw
	var n int
	if c.exact {
		r.states[c.key].occ++
		n = int(r.states[c.key].occ)
	} else {
		n = r.rawOcc[raw] + 1
		r.rawOcc[raw] = n
	}
	id := raw
	if !c.preserved {
		var ki int32
		id, ki = r.freshCall(c, n)
		if ki == none {
			ki = r.key(id)
		}
		r.states[ki].used = true
	}
	oi := int32(len(r.occs))
	r.occs = append(r.occs, occurrence{id: id, raw: raw, nextSame: none, nextSyn: none})
	ks := &r.states[c.key]
	if ks.last != none {
		r.occs[ks.last].nextSame = oi
	}
	ks.last = oi
	if ks.noneHead == none {
		ks.noneHead = oi
	}
	if ks.frame != r.frame {
		ks.frame, ks.cur, ks.next, ks.synNext = r.frame, oi, oi, oi
	}
	if ks.next == none {
		ks.next = oi
	}
	if ks.synNext == none {
		ks.synNext = oi
	}
	ks.cntNone++
}

// freshCall is fresh for occurrence n of call c, with the answers the
// collect phase computed: the raw id's and the sanitised id's validity and
// states. It also returns the state of the id, or none when it is not known
// yet.
func (r *resolver) freshCall(c *callSite, n int) (string, int32) {
	if n == 1 && c.exact && c.rawValid && !r.states[c.key].used &&
		(r.openaiDup && isOpenAICallID(c.raw) || r.nativeToolu && isNativeToolUseID(c.raw)) {
		return c.raw, c.key
	}
	if n == 1 && c.hasBase && !r.states[c.baseKey].used {
		return r.fitKnown(c.raw, c.base, c.baseKey, c.baseValid)
	}
	// makeUnique's next candidate, after a first one that is taken or, in
	// strict9, not nine characters long.
	if n == 1 && c.hasSecond && !r.states[c.secondKey].used {
		return r.fitKnown(c.raw, c.second, c.secondKey, c.secondValid)
	}
	return r.fresh(c.raw, n), none
}

// fresh computes the id of occurrence n of raw id raw (spec §3.6 steps 2–3,
// with the OpenAI duplicate style), and makes sure the target accepts it.
func (r *resolver) fresh(raw string, n int) string {
	if r.openaiDup && isOpenAICallID(raw) {
		if n == 1 && !r.taken(raw) && r.limits.Valid(raw) {
			return raw
		}
		if n > 1 {
			prefix := raw + ":" + strconv.Itoa(n) + ":"
			for attempt := 0; ; attempt++ {
				c := "call_" + sha256Hex(prefix + strconv.Itoa(attempt))[:24]
				if !r.taken(c) {
					return r.fit(prefix+strconv.Itoa(attempt), c)
				}
			}
		}
	}
	if r.nativeToolu && n == 1 && isNativeToolUseID(raw) && !r.taken(raw) && r.limits.Valid(raw) {
		return raw
	}
	seed := raw
	if n > 1 {
		seed = raw + ":" + strconv.Itoa(n)
	}
	return r.fit(seed, r.san.makeUnique(seed, r))
}

// taken reports whether id is already given out (or reserved).
func (r *resolver) taken(id string) bool {
	ki, ok := r.keys.lookup(id)
	return ok && r.states[ki].used
}

// fitKnown is fit for an id whose state ki and validity the collect phase
// computed; it returns the state too (none when fit built another id).
func (r *resolver) fitKnown(seed, id string, ki int32, valid bool) (string, int32) {
	if valid {
		return id, ki
	}
	return r.fit(seed, id), none
}

// fit returns id when the target accepts it, else a fitted id for seed. It
// records a failure in r.err (and returns id) when no accepted id exists.
func (r *resolver) fit(seed, id string) string {
	if r.limits.Valid(id) {
		return id
	}
	fitted, ok := fitID(seed, r.limits, r)
	if !ok {
		if r.err == nil {
			r.err = errNoAcceptedID(seed, r.limits)
		}
		return id
	}
	return fitted
}

// result returns the id for tool result res whose trimmed id is k (state
// ki), in the current frame.
func (r *resolver) result(k string, ki int32, res resultRef) string {
	state := syntheticResult
	if res.real {
		state = realResult
	}
	if ks := &r.states[ki]; ks.frame == r.frame && ks.cur != none {
		return r.inFrame(k, ki, res, state)
	}
	if o := r.displaced(ki, state); o != none {
		return r.occs[o].id
	}
	return r.orphan(k, ki)
}

// inFrame claims the earliest unclaimed occurrence of the current frame, or,
// when all are claimed, returns the id of the occurrence the duplicate would
// replace (a synthetic one, for a real result) or duplicate (the first).
//
// The first claim is kept, as in pairing repair: a result that matched a
// call only after trimming keeps it over a later result whose id is the
// call's as written (issue 20; an exact id wins only over an id-less
// adoption, which pairing does after this rule).
func (r *resolver) inFrame(k string, ki int32, res resultRef, state uint8) string {
	ks := &r.states[ki]
	if o := ks.next; o != none {
		ks.next = r.occs[o].nextSame
		r.settle(ks, o, state)
		return r.occs[o].id
	}
	if state == realResult {
		for ks.synNext != none && r.occs[ks.synNext].state != syntheticResult {
			ks.synNext = r.occs[ks.synNext].nextSame
		}
		if o := ks.synNext; o != none {
			r.settle(ks, o, state)
			return r.occs[o].id
		}
		// A real duplicate that does not match the first call exactly gets
		// an orphan id: with the call's id it would match exactly after the
		// rewrite and could win the call from a result that wins it now.
		if res.raw != r.occs[ks.cur].raw {
			return r.orphan(k, ki)
		}
	}
	return r.occs[ks.cur].id
}

// displaced returns the single unresolved candidate of an earlier frame for
// a result that matches no occurrence of its own frame, or none when there
// is none or more than one (pairing drops such a result).
func (r *resolver) displaced(ki int32, state uint8) int32 {
	ks := &r.states[ki]
	candidates := ks.cntNone
	if state == realResult {
		candidates += ks.cntSyn
	}
	if candidates != 1 {
		return none
	}
	for ks.noneHead != none && r.occs[ks.noneHead].state != noResult {
		ks.noneHead = r.occs[ks.noneHead].nextSame
	}
	o := ks.noneHead
	if o == none {
		for ks.synHead != none && r.occs[ks.synHead].state != syntheticResult {
			ks.synHead = r.occs[ks.synHead].nextSyn
		}
		o = ks.synHead
	}
	r.settle(ks, o, state)
	return o
}

// settle records that occurrence o of ks now holds a result in the given
// state.
func (r *resolver) settle(ks *keyState, o int32, state uint8) {
	oc := &r.occs[o]
	switch oc.state {
	case noResult:
		ks.cntNone--
	case syntheticResult:
		ks.cntSyn--
	}
	oc.state = state
	if state == syntheticResult {
		ks.cntSyn++
		if ks.synHead == none {
			ks.synHead = o
		} else {
			r.occs[ks.synTail].nextSyn = o
		}
		ks.synTail = o
	}
}

// orphan gives a result that pairs with no call an id no call uses: a native
// toolu_ id or an id that is already what the mode produces is kept when it
// is free and no call of the history carries it (so a second run keeps it,
// and the call keeps its own id); otherwise makeUnique(k:tool_result:n).
func (r *resolver) orphan(k string, ki int32) string {
	ks := &r.states[ki]
	ks.orphans++
	var id string
	switch {
	case !ks.isCall && !ks.used && r.limits.Valid(k) && (r.san.validInMode(k) || r.nativeToolu && ks.orphans == 1 && isNativeToolUseID(k)):
		id = k
	default:
		seed := k + ":tool_result:" + strconv.Itoa(int(ks.orphans))
		id = r.fit(seed, r.san.makeUnique(seed, r))
	}
	r.markUsed(id)
	return id
}

// isNativeToolUseID reports whether id matches ^toolu_[A-Za-z0-9_]+$.
func isNativeToolUseID(id string) bool {
	return hasWordTail(id, "toolu_", false)
}

// isOpenAICallID reports whether id matches ^call_[A-Za-z0-9_-]+$.
func isOpenAICallID(id string) bool {
	return hasWordTail(id, "call_", true)
}

// hasWordTail reports whether id is prefix followed by one or more of
// [A-Za-z0-9_] (and '-' when dash is set).
func hasWordTail(id, prefix string, dash bool) bool {
	if len(id) <= len(prefix) || id[:len(prefix)] != prefix {
		return false
	}
	for i := len(prefix); i < len(id); i++ {
		if c := id[i]; !alnumBytes[c] && c != '_' && !(dash && c == '-') {
			return false
		}
	}
	return true
}

// errNoAcceptedID says that no id under the target's limits could be built.
func errNoAcceptedID(seed string, lim contract.IDLimits) error {
	return fmt.Errorf("tool_call_ids: could not build a tool-call id for %q that the target accepts (limits %+v)", seed, lim)
}

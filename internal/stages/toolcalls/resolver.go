package toolcalls

import (
	"fmt"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Result states of an occurrence, as pairing repair sees them.
const (
	noResult uint8 = iota
	syntheticResult
	realResult
)

// occurrence is one tool call of the history and the id it was given.
type occurrence struct {
	id    string
	raw   string // the call's id as written
	state uint8
	// holder is the real result that claimed it in its frame when that
	// result's id matched only after trimming: a later result of the frame
	// whose id is exactly raw takes the call from it.
	holder *transcript.Message
}

// resultRef is one tool result as the resolver sees it.
type resultRef struct {
	msg  *transcript.Message
	raw  string // its id as written, as pairing reads it (RawResultID)
	real bool   // false for a synthetic missing result
}

// queue is a FIFO of occurrences with lazy removal: entries whose state no
// longer matches the queue are skipped when they reach the head.
type queue struct {
	items []*occurrence
	head  int
}

func (q *queue) push(o *occurrence) { q.items = append(q.items, o) }

// first returns the oldest entry in the given state.
func (q *queue) first(state uint8) *occurrence {
	for q.head < len(q.items) {
		if o := q.items[q.head]; o.state == state {
			return o
		}
		q.items[q.head] = nil
		q.head++
	}
	return nil
}

// keyState is everything the resolver knows about one trimmed call id.
type keyState struct {
	none, syn       queue // unresolved occurrences: no result / a synthetic one
	cntNone, cntSyn int
	frame           int           // the frame cur belongs to
	cur             []*occurrence // occurrences of that frame, in content order
	next, synNext   int           // first unclaimed / first synthetic-holding in cur
	orphans         int           // orphan results seen (spec orphanOcc)
	occ             int           // calls whose raw id is exactly this key (spec occ)
	isCall          bool          // some call of the history carries this id
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
type resolver struct {
	san         sanitizer
	limits      contract.IDLimits
	nativeToolu bool
	openaiDup   bool
	used        map[string]struct{}
	rawOcc      map[string]int // occurrences of raw ids with surrounding space
	keys        map[string]*keyState
	frame       int
	err         error // the first id the target accepts that could not be built
}

// newResolver sizes its maps for a history of about n messages.
func newResolver(p policy.Policy, n int) *resolver {
	return &resolver{
		san:         sanitizer{mode: p.ToolCallIDMode, keepKimi: p.IDLimits.Valid("functions.read:0")},
		limits:      p.IDLimits,
		nativeToolu: p.PreserveNativeAnthropicToolUseIDs,
		openaiDup:   p.DuplicateToolCallIDStyle == "openai",
		used:        make(map[string]struct{}, n/2),
		rawOcc:      map[string]int{},
		keys:        make(map[string]*keyState, n/2),
	}
}

// key returns the state of a trimmed id, creating it.
func (r *resolver) key(k string) *keyState {
	ks := r.keys[k]
	if ks == nil {
		ks = &keyState{frame: -1}
		r.keys[k] = ks
	}
	return ks
}

// reserve marks an id of a preserved signed turn as taken before the pass.
func (r *resolver) reserve(id string) { r.used[id] = struct{}{} }

// startFrame begins the frame of an assistant that has tool calls.
func (r *resolver) startFrame() { r.frame++ }

// call assigns the id of one tool call with raw id raw. A preserved call
// keeps its raw id (already reserved).
func (r *resolver) call(raw string, preserved bool) string {
	k := transcript.TrimID(raw)
	ks := r.key(k)
	var n int
	if raw == k {
		ks.occ++
		n = ks.occ
	} else {
		n = r.rawOcc[raw] + 1
		r.rawOcc[raw] = n
	}
	id := raw
	if !preserved {
		id = r.fresh(raw, n)
		r.used[id] = struct{}{}
	}
	o := &occurrence{id: id, raw: raw}
	if ks.frame != r.frame {
		ks.frame, ks.cur, ks.next, ks.synNext = r.frame, ks.cur[:0], 0, 0
	}
	ks.cur = append(ks.cur, o)
	ks.none.push(o)
	ks.cntNone++
	return id
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
				if _, t := r.used[c]; !t {
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
	return r.fit(seed, r.san.makeUnique(seed, r.used))
}

// taken reports whether id is already given out (or reserved).
func (r *resolver) taken(id string) bool {
	_, ok := r.used[id]
	return ok
}

// fit returns id when the target accepts it, else a fitted id for seed. It
// records a failure in r.err (and returns id) when no accepted id exists.
func (r *resolver) fit(seed, id string) string {
	if r.limits.Valid(id) {
		return id
	}
	fitted, ok := fitID(seed, r.limits, r.used)
	if !ok {
		if r.err == nil {
			r.err = errNoAcceptedID(seed, r.limits)
		}
		return id
	}
	return fitted
}

// result returns the id for tool result res whose trimmed id is k, in the
// current frame.
func (r *resolver) result(k string, res resultRef) string {
	state := syntheticResult
	if res.real {
		state = realResult
	}
	ks := r.keys[k]
	if ks != nil && ks.frame == r.frame && len(ks.cur) > 0 {
		return r.inFrame(k, ks, res, state)
	}
	if ks != nil {
		if o := r.displaced(ks, state); o != nil {
			return o.id
		}
	}
	return r.orphan(k, ks)
}

// inFrame claims the earliest unclaimed occurrence of the current frame, or,
// when all are claimed, returns the id of the occurrence the duplicate would
// replace (a synthetic one, for a real result) or duplicate (the first).
//
// An exact match wins over a trimmed one, as in pairing repair: a real
// result whose id is a call's id as written takes that call from a real
// result that matched it only after trimming, and the earlier result gets an
// orphan id (pairing then drops it as the duplicate it is).
func (r *resolver) inFrame(k string, ks *keyState, res resultRef, state uint8) string {
	if ks.next < len(ks.cur) {
		o := ks.cur[ks.next]
		ks.next++
		r.settle(ks, o, state)
		r.holdIfInexact(o, res, state)
		return o.id
	}
	if state == realResult {
		for ks.synNext < len(ks.cur) && ks.cur[ks.synNext].state != syntheticResult {
			ks.synNext++
		}
		if ks.synNext < len(ks.cur) {
			o := ks.cur[ks.synNext]
			r.settle(ks, o, state)
			r.holdIfInexact(o, res, state)
			return o.id
		}
		for _, o := range ks.cur {
			if o.holder != nil && o.raw == res.raw {
				writeResultID(o.holder, r.orphan(k, ks))
				o.holder = nil
				return o.id
			}
		}
		// A real duplicate that does not match the first call exactly gets
		// an orphan id: with the call's id it would match exactly after the
		// rewrite and could win the call from a result that wins it now.
		if res.raw != ks.cur[0].raw {
			return r.orphan(k, ks)
		}
	}
	return ks.cur[0].id
}

// holdIfInexact remembers a real result that claimed o without matching
// its id as written.
func (r *resolver) holdIfInexact(o *occurrence, res resultRef, state uint8) {
	o.holder = nil
	if state == realResult && res.raw != o.raw {
		o.holder = res.msg
	}
}

// displaced returns the single unresolved candidate of an earlier frame for
// a result that matches no occurrence of its own frame, or nil when there is
// none or more than one (pairing drops such a result).
func (r *resolver) displaced(ks *keyState, state uint8) *occurrence {
	candidates := ks.cntNone
	if state == realResult {
		candidates += ks.cntSyn
	}
	if candidates != 1 {
		return nil
	}
	o := ks.none.first(noResult)
	if o == nil {
		o = ks.syn.first(syntheticResult)
	}
	r.settle(ks, o, state)
	return o
}

// settle records that occurrence o now holds a result in the given state.
func (r *resolver) settle(ks *keyState, o *occurrence, state uint8) {
	switch o.state {
	case noResult:
		ks.cntNone--
	case syntheticResult:
		ks.cntSyn--
	}
	o.state = state
	if state == syntheticResult {
		ks.cntSyn++
		ks.syn.push(o)
	}
}

// orphan gives a result that pairs with no call an id no call uses: a native
// toolu_ id or an id that is already what the mode produces is kept when it
// is free and no call of the history carries it (so a second run keeps it,
// and the call keeps its own id); otherwise makeUnique(k:tool_result:n).
func (r *resolver) orphan(k string, ks *keyState) string {
	if ks == nil {
		ks = r.key(k)
	}
	ks.orphans++
	var id string
	switch {
	case !ks.isCall && !r.taken(k) && r.limits.Valid(k) && (r.san.validInMode(k) || r.nativeToolu && ks.orphans == 1 && isNativeToolUseID(k)):
		id = k
	default:
		seed := k + ":tool_result:" + strconv.Itoa(ks.orphans)
		id = r.fit(seed, r.san.makeUnique(seed, r.used))
	}
	r.used[id] = struct{}{}
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
		if c := id[i]; !isAlnum(c) && c != '_' && !(dash && c == '-') {
			return false
		}
	}
	return true
}

// errNoAcceptedID says that no id under the target's limits could be built.
func errNoAcceptedID(seed string, lim contract.IDLimits) error {
	return fmt.Errorf("tool_call_ids: could not build a tool-call id for %q that the target accepts (limits %+v)", seed, lim)
}

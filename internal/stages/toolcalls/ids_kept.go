package toolcalls

import (
	"context"
	"hash/maphash"
	"math/bits"
	"sync"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// keepsEveryID reports whether the sanitising pass over msgs would keep
// every call and result id as written, so that it may write nothing and
// collect nothing: the proof a clean history gives in one read of its ids,
// with a table of its ids (about 24 bytes each) where the pass keeps
// sites, key maps and resolver states (about 300 bytes a call: 13.6 MiB
// of a clean 100k-message history's 58 MiB heap).
//
// It holds when, in history order,
//   - every call with an id (collect's sites) has an id that needs no
//     trimming and that no earlier call or result carries, and the
//     resolver keeps it: the target accepts it and it is already what the
//     mode produces (sanitizer.validInMode) or a native id the policy keeps
//     (an OpenAI call_ id with the OpenAI duplicate style, a toolu_ id with
//     PreserveNativeAnthropicToolUseIDs), or its assistant is a replay-safe
//     signed turn whose ids the pass keeps as written
//     (collector.preservesTurn: Bedrock's toolu_ ids);
//   - every result with an id has toolCallId as its only non-blank id
//     member, needing no trimming (the rewrite then leaves it unread), and
//     the resolver gives it its own id (callTable.claim): it answers a call
//     of its id, in the call's frame or as the call's first result, or it
//     is the first result of an id no call carries, and an id the mode
//     would give an orphan (collector.keepsOrphanID).
//
// Then the resolver gives each call its own id (no id is taken before: the
// ids are distinct, an orphan's id is no call's, and a preserved turn
// reserves only its own calls' ids), and each result its own id. Any other
// history (a repeated or foreign id, a result its call's resolver state
// would not give its id, another id member) answers false at the first
// such site, and the pass runs: a damaged history pays for a few messages'
// read, a history whose one bad id is its last for one read of its ids
// more.
func (c *collector) keepsEveryID(ctx context.Context, msgs []*transcript.Message) (bool, error) {
	tab := newCallTable(len(msgs))
	defer tab.release()
	var signed []int // the assistants whose ids only a replay-safe signed turn keeps
	frame := int32(0)
	for i, m := range msgs {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		if !m.IsObject() {
			continue
		}
		switch m.Role() {
		case transcript.RoleAssistant:
			blocks, _ := m.Blocks()
			opens, preserved := true, false
			for _, raw := range idCalls(blocks) {
				if opens {
					frame, opens = frame+1, false
				}
				if len(transcript.TrimID(raw)) != len(raw) {
					return false, nil
				}
				if !c.keepsCallID(raw) && !preserved {
					// A signed turn is judged once every other site holds
					// (preservesTurn): a damaged history stops first, at
					// less cost. Here only what is read of m already.
					if !c.replay || m.Facts()&transcript.FactThinking == 0 {
						return false, nil
					}
					signed, preserved = append(signed, i), true
				}
				if !tab.add(raw, frame) {
					return false, nil
				}
			}
		case transcript.RoleToolResult:
			ids, ok := readResultIDs(m)
			if !ok {
				continue
			}
			if !ids.callIDOnly || ids.raw != ids.k {
				return false, nil
			}
			if !tab.claim(ids.k, frame, c.keepsOrphanID) {
				return false, nil
			}
		}
	}
	var turns idChunk // signedTurn's scratch, reused from one turn to the next
	for _, i := range signed {
		if !c.preservesTurn(&turns, i, msgs[i]) {
			return false, nil
		}
	}
	return true, nil
}

// preservesTurn reports whether the pass keeps the ids of assistant m
// (message i) as a replay-safe signed turn (collector.signedTurn, then
// resolver.replaySafe), given that every call id of the history is
// distinct and the policy replays provider-owned thinking (keepsEveryID
// asks only then): m is a signed turn (its thinking verified by the
// target, every call with input, an id the target accepts and a plain
// valid name), and every call's name is allowed. A name the allow-list
// lacks makes the turn replay-safe only with a later real result of its
// call, which the proof does not read: it answers false. turns is the
// scratch signedTurn appends the calls to.
func (c *collector) preservesTurn(turns *idChunk, i int, m *transcript.Message) bool {
	blocks, _ := m.Blocks()
	turns.turnCalls = turns.turnCalls[:0]
	turn, ok := c.signedTurn(turns, i, m, blocks)
	if !ok {
		return false
	}
	for _, call := range turn.calls {
		if !call.allowed {
			return false
		}
	}
	return true
}

// keepsOrphanID reports whether the resolver keeps k as the id of the
// first result of k that answers no call, when no call of the history
// carries k and nothing took it (resolver.orphan): the target accepts it,
// and it is what the mode produces or, with native ids kept, a toolu_ id.
func (c *collector) keepsOrphanID(k string) bool {
	return c.limits.Valid(k) && (c.san.validInMode(k) || c.nativeToolu && isNativeToolUseID(k))
}

// keepsCallID reports whether the resolver keeps raw, an id that needs no
// trimming, as the id of a call whose id no earlier call or result took:
// the target accepts it, and it is what the mode produces or a native id
// the policy keeps (freshCall's first two answers).
func (c *collector) keepsCallID(raw string) bool {
	return c.limits.Valid(raw) && (c.san.validInMode(raw) || c.openaiDup && isOpenAICallID(raw) || c.nativeToolu && isNativeToolUseID(raw))
}

// callTable is keepsEveryID's set of the ids of the calls and orphan
// results read so far: open addressing over a seeded hash, each slot the
// index of its id in ids plus one (0: empty), at most half the slots full.
// It is sized for a history whose ids are at most half its messages (each
// call is answered by a result message) and grows past that. Sized by a
// count of the calls, it cost a damaged history, whose first bad id ends
// the check, a read of every message (+0.9 % instructions on the large
// suite's damaged 100k-message history); grown from a few slots, the arrays
// it left behind were 4 MiB of the clean one's peak.
type callTable struct {
	seed  maphash.Seed
	slots []int32
	ids   []tableID
}

// tableID is one id of a callTable: a call's, with the frame of the call
// and whether a result answered it, or an orphan result's.
type tableID struct {
	id       string
	frame    int32
	answered bool
	orphan   bool
}

// newCallTable returns an empty table for a history of n messages: room
// for n/2 ids in twice as many slots, at least 16. It is the pool's table
// (release) when that one has room enough and at most four times the
// slots, so that a long history's table is not cleared for every short
// one.
func newCallTable(n int) *callTable {
	size := max(1<<bits.Len(uint(n)), 16)
	if t, ok := tablePool.Get().(*callTable); ok && len(t.slots) >= size && len(t.slots) <= 4*size {
		return t
	}
	return &callTable{seed: maphash.MakeSeed(), slots: make([]int32, size), ids: make([]tableID, 0, size/2)}
}

// tablePool holds a released callTable, cleared (of *callTable): a worker's
// jobs reuse one table as the id pass's arrays are reused (pass_arrays.go).
var tablePool sync.Pool

// release clears t, which holds no id of the job after, and gives it to
// the pool.
func (t *callTable) release() {
	clear(t.slots)
	clear(t.ids)
	t.ids = t.ids[:0]
	tablePool.Put(t)
}

// find returns the slot of id: its own, or the empty one where it would
// go.
func (t *callTable) find(id string) int {
	mask := len(t.slots) - 1
	for s := int(maphash.String(t.seed, id)) & mask; ; s = (s + 1) & mask {
		if i := t.slots[s]; i == 0 || t.ids[i-1].id == id {
			return s
		}
	}
}

// put adds e at slot s, which find returned for e.id, and grows the table
// when it is half full.
func (t *callTable) put(s int, e tableID) {
	t.ids = append(t.ids, e)
	t.slots[s] = int32(len(t.ids))
	if 2*len(t.ids) > len(t.slots) {
		t.slots = make([]int32, 2*len(t.slots))
		for i := range t.ids {
			t.slots[t.find(t.ids[i].id)] = int32(i + 1)
		}
	}
}

// add records the id of a call of frame frame, and reports false when an
// earlier call or orphan result has it (an orphan's id that a call of the
// history carries is not kept: resolver.orphan).
func (t *callTable) add(id string, frame int32) bool {
	s := t.find(id)
	if t.slots[s] != 0 {
		return false
	}
	t.put(s, tableID{id: id, frame: frame})
	return true
}

// claim records a result of id in frame frame, and reports whether the
// resolver gives it its own id, or may not. When a call has id, it has the
// only occurrence of it, and the resolver gives it any result in the
// call's frame (the first claims the call, a later one duplicates it) and
// a result of a later frame when the call holds no result yet (displaced:
// the call is its one candidate). A displaced result of a call that holds
// one answers false: the resolver keeps its id only when it is real and
// the call's result synthetic, which the proof does not read. When no call
// so far has id, the result is an orphan, which keeps id when keepsOrphan
// says so and no orphan took it before (a call that has it later fails
// add).
func (t *callTable) claim(id string, frame int32, keepsOrphan func(string) bool) bool {
	s := t.find(id)
	if t.slots[s] == 0 {
		if !keepsOrphan(id) {
			return false
		}
		t.put(s, tableID{id: id, orphan: true})
		return true
	}
	c := &t.ids[t.slots[s]-1]
	if c.orphan || c.frame != frame && c.answered {
		return false
	}
	c.answered = true
	return true
}

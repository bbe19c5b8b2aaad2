package toolcalls

import (
	"context"
	"hash/maphash"
	"math/bits"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// keepsEveryID reports whether the sanitising pass over msgs would keep
// every call and result id as written, so that it may write nothing and
// collect nothing: the proof a clean history gives in one read of its ids,
// with a table of its call ids (about 24 bytes a call) where the pass
// keeps sites, key maps and resolver states (about 300 bytes a call: 13.6
// MiB of a clean 100k-message history's 58 MiB heap).
//
// It holds when, in history order,
//   - every call with an id (collect's sites) has an id that needs no
//     trimming, that the target accepts (IDLimits), that is already what
//     the mode produces (sanitizer.validInMode) or a native id the policy
//     keeps (an OpenAI call_ id with the OpenAI duplicate style, a toolu_
//     id with PreserveNativeAnthropicToolUseIDs), and that no earlier call
//     carries;
//   - every result with an id has toolCallId as its only non-blank id
//     member, needing no trimming (the rewrite then leaves it unread), and
//     it is the first result of the call of that id in the current frame
//     (the calls of the latest assistant that has any).
//
// Then the resolver gives each call its first candidate, which is its own
// id (no id is taken before: the ids are distinct, no result is an
// orphan, and a preserved turn reserves only its own calls' ids), and each
// result the id of the call it claims in its frame, which is its own. Any
// other history (a repeated or foreign id, a result before its call, in a
// later frame or a second time, an orphan, another id member) answers
// false at the first such site, and the pass runs: a damaged history pays
// for a few messages' read, a history whose one bad id is its last for one
// read of its ids more. So does a replay-safe signed turn whose ids are
// kept only because it is one (Bedrock's toolu_ ids): the proof does not
// look for such turns.
func (c *collector) keepsEveryID(ctx context.Context, msgs []*transcript.Message) (bool, error) {
	tab := newCallTable(len(msgs))
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
			opens := true
			for _, raw := range idCalls(blocks) {
				if opens {
					frame, opens = frame+1, false
				}
				if !c.keepsCallID(raw) || !tab.add(raw, frame) {
					return false, nil
				}
			}
		case transcript.RoleToolResult:
			ids, ok := readResultIDs(m)
			if !ok {
				continue
			}
			if !ids.callIDOnly || ids.raw != ids.k || !tab.claim(ids.k, frame) {
				return false, nil
			}
		}
	}
	return true, nil
}

// keepsCallID reports whether the resolver keeps raw as the id of a call
// whose id no earlier call or result took: it needs no trimming, the
// target accepts it, and it is what the mode produces or a native id the
// policy keeps (freshCall's first two answers).
func (c *collector) keepsCallID(raw string) bool {
	if len(transcript.TrimID(raw)) != len(raw) || !c.limits.Valid(raw) {
		return false
	}
	return c.san.validInMode(raw) || c.openaiDup && isOpenAICallID(raw) || c.nativeToolu && isNativeToolUseID(raw)
}

// callTable is keepsEveryID's set of call ids: open addressing over a
// seeded hash, each slot the index of its call in calls plus one (0:
// empty), at most half the slots full. It is sized for a history whose
// calls are at most half its messages (each call is answered by a result
// message) and grows past that. Sized by a count of the calls, it cost a
// damaged history, whose first bad id ends the check, a read of every
// message (+0.9 % instructions on the large suite's damaged 100k-message
// history); grown from a few slots, the arrays it left behind were 4 MiB
// of the clean one's peak.
type callTable struct {
	seed  maphash.Seed
	slots []int32
	calls []tableCall
}

// tableCall is one call id of a callTable: the frame of its call, and
// whether a result claimed it.
type tableCall struct {
	id      string
	frame   int32
	claimed bool
}

// newCallTable returns an empty table for a history of n messages: room
// for n/2 calls in twice as many slots, at least 16.
func newCallTable(n int) *callTable {
	size := max(1<<bits.Len(uint(n)), 16)
	return &callTable{seed: maphash.MakeSeed(), slots: make([]int32, size), calls: make([]tableCall, 0, size/2)}
}

// find returns the slot of id: its call's, or the empty one where it would
// go.
func (t *callTable) find(id string) int {
	mask := len(t.slots) - 1
	for s := int(maphash.String(t.seed, id)) & mask; ; s = (s + 1) & mask {
		if ci := t.slots[s]; ci == 0 || t.calls[ci-1].id == id {
			return s
		}
	}
}

// add records the call id of frame frame, and reports false when an
// earlier call has it.
func (t *callTable) add(id string, frame int32) bool {
	s := t.find(id)
	if t.slots[s] != 0 {
		return false
	}
	t.calls = append(t.calls, tableCall{id: id, frame: frame})
	t.slots[s] = int32(len(t.calls))
	if 2*len(t.calls) > len(t.slots) {
		t.grow()
	}
	return true
}

// grow doubles the slots and places every call again.
func (t *callTable) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	for i := range t.calls {
		t.slots[t.find(t.calls[i].id)] = int32(i + 1)
	}
}

// claim records a result of id in frame frame, and reports false unless
// it is the first result of a call of that frame.
func (t *callTable) claim(id string, frame int32) bool {
	ci := t.slots[t.find(id)]
	if ci == 0 {
		return false
	}
	c := &t.calls[ci-1]
	if c.frame != frame || c.claimed {
		return false
	}
	c.claimed = true
	return true
}

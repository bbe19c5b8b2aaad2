package toolcalls

import (
	"context"
	"sync"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// keepsEveryID reports whether the sanitising pass over msgs would keep
// every call and result id as written, so that it may write nothing and
// collect nothing: the proof a clean history gives in one read of its ids,
// with a map of its ids (about 40 bytes each) where the pass keeps
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
//     (collector.preservesTurn: Bedrock's tooluse_ ids);
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
//
// The same read adds every message to also, while its calls and results
// are in cache: where the ids are kept, what also says of the pairing
// repair and the input validation holds of the history those rules will
// find, unless a rule edits it before them (sameRead.prove).
func (c *collector) keepsEveryID(ctx context.Context, msgs []*transcript.Message, also *sameRead) (bool, error) {
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
		also.add(m) // while m's calls and results are read here
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

// sameRead is what the id proof reads of every message besides its ids,
// for the rules after it that read the same calls and results: a check
// is nil where no such rule follows the run (sanitizeIDs' callers).
type sameRead struct {
	pairs  *transcript.PairedCheck
	inputs *inputsCheck
}

// add reads the next message of the history.
func (s *sameRead) add(m *transcript.Message) {
	if s.pairs != nil {
		s.pairs.Add(m)
	}
	if s.inputs != nil {
		s.inputs.add(m)
	}
}

// prove leaves in env what s found of the whole history, which the id
// proof kept as it is: the pairing (stage.Env.ResultsPaired, 1 when every
// result carries its call's id as written) and the input validation
// (stage.Env.InputsKept).
func (s *sameRead) prove(env *stage.Env) {
	if s.pairs != nil {
		if paired, exact := s.pairs.Paired(); paired {
			v := 0
			if exact {
				v = 1
			}
			env.ResultsPaired = env.Prove(v)
		}
	}
	if s.inputs != nil && s.inputs.kept() {
		env.InputsKept = env.Prove(0)
	}
}

// callTable is keepsEveryID's set of the ids of the calls and orphan
// results read so far. It is made with room for half the history's
// messages (each call is answered by a result message) and grows past
// that: counting the calls first cost a damaged history, whose first bad
// id ends the check, a read of every message (+0.9 % instructions on the
// large suite's damaged 100k-message history).
type callTable struct {
	ids  map[string]tableID
	room int // the most ids ids has held: what clearing it costs
}

// tableID is one id of a callTable: a call's, with the frame of the call
// and whether a result answered it, or an orphan result's.
type tableID struct {
	frame    int32
	answered bool
	orphan   bool
}

// newCallTable returns an empty table for a history of n messages: the
// pool's (release) when it has room enough and at most four times that, so
// that a long history's table is not cleared for every short one, else one
// with room for n/2 ids (at least 8).
func newCallTable(n int) *callTable {
	room := max(n/2, 8)
	if t, ok := tablePool.Get().(*callTable); ok && t.room >= room && t.room <= 4*room {
		return t
	}
	return &callTable{ids: make(map[string]tableID, room), room: room}
}

// tablePool holds a released callTable, empty (of *callTable): a worker's
// jobs reuse one table as the id pass's key maps are reused
// (pass_arrays.go).
var tablePool sync.Pool

// release empties t, which holds no id of the job after, and gives it to
// the pool.
func (t *callTable) release() {
	t.room = max(t.room, len(t.ids))
	clear(t.ids)
	tablePool.Put(t)
}

// add records the id of a call of frame frame, and reports false when an
// earlier call or orphan result has it (an orphan's id that a call of the
// history carries is not kept: resolver.orphan).
func (t *callTable) add(id string, frame int32) bool {
	if _, ok := t.ids[id]; ok {
		return false
	}
	t.ids[id] = tableID{frame: frame}
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
	c, ok := t.ids[id]
	if !ok {
		if !keepsOrphan(id) {
			return false
		}
		t.ids[id] = tableID{orphan: true}
		return true
	}
	if c.orphan || c.frame != frame && c.answered {
		return false
	}
	if !c.answered {
		c.answered = true
		t.ids[id] = c
	}
	return true
}

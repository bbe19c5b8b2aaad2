package toolcalls

import (
	"context"
	"iter"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// callSite is one tool call as the collect phase found it: where it is, its
// id as written and everything about that id that needs no other call (the
// ids makeUnique tries first, whether the target accepts each), then the
// state indexes of its trimmed id and of those ids (keyTable.intern). One
// is kept for every call of a long history, so it holds nothing another
// field gives: the trimmed id is transcript.TrimID(raw), and the id the
// resolver gives the call is its occurrence's (resolver.occs, in call
// order). Its size is pinned by TestSiteSizes.
type callSite struct {
	block       *transcript.Block
	raw         string // its id as written
	base        string // makeUnique's first candidate for raw, when hasBase
	second      string // its next candidate, when hasSecond (strict9Hashed(raw, 0))
	at          int32  // its message's index
	key         int32  // the trimmed id's state
	baseKey     int32  // base's state (none without a base)
	secondKey   int32  // second's state
	hasBase     bool
	hasSecond   bool
	exact       bool // raw needs no trimming
	opens       bool // the first call of its assistant: it opens a frame
	preserved   bool // its turn is replay-safe: it keeps its id (preserve)
	rawValid    bool // the target accepts raw
	baseValid   bool // the target accepts base
	secondValid bool // the target accepts second
}

// resultSite is one tool result with an id, as the collect phase found it,
// and the id the resolver gives it. Its size is pinned by TestSiteSizes.
type resultSite struct {
	msg *transcript.Message
	k   string // the trimmed id the rule resolves (readResultIDs)
	ref resultRef
	id  string
	at  int32 // its index
	key int32 // k's state
}

// signedTurn is a signed-thinking turn that passed every check of
// replaySafe that reads no other turn: its calls, in order, which are the
// chunk's call sites from first on.
type signedTurn struct {
	at, first int
	calls     []turnCall // a window of its chunk's turnCalls
}

// turnCall is one call of a signedTurn: its raw and trimmed id and whether
// its name is allowed (when not, it needs a real result later).
type turnCall struct {
	raw, key string
	allowed  bool
}

// idChunk is what the collect phase found in one chunk of messages, or the
// context's error that stopped it.
type idChunk struct {
	calls   []callSite
	results []resultSite
	turns   []signedTurn
	// turnCalls holds the calls of every turn of turns, one after the
	// other: one growing array per chunk, not one per turn.
	turnCalls []turnCall
	lastReal  map[string]int // the last real result of each trimmed id (replay with an allow-list)
	err       error
}

// collector is the collect phase of one pass: what it reads of the policy
// and settings.
type collector struct {
	policy      policy.Policy
	san         sanitizer
	limits      contract.IDLimits
	openaiDup   bool
	nativeToolu bool
	replay      bool
	allow       allowList
	synthetic   string
	// keys, when set, interns each id as it is collected, while its bytes
	// are in cache (a pass in one chunk: sanitizeIDs); the key table's
	// intern pass then has nothing left to do.
	keys *keyShard
}

// newCollector returns the collect phase of a pass over env; replay says
// whether replay-safe signed turns keep their ids.
func newCollector(env *stage.Env, replay bool) *collector {
	p := env.Policy
	return &collector{
		policy:      p,
		san:         newSanitizer(p),
		limits:      p.IDLimits,
		openaiDup:   p.DuplicateToolCallIDStyle == "openai",
		nativeToolu: p.PreserveNativeAnthropicToolUseIDs,
		replay:      replay,
		allow:       newAllowList(env.Settings.Request.AllowedToolNames, env.Policy.Contract.ToolNames),
		synthetic:   env.Settings.MissingToolResultText,
	}
}

// collect reads messages [lo, hi) of msgs: every tool call with an id,
// every tool result with one and, when replay is set, the signed turns
// whose call ids may be kept. It only reads the messages, so chunks run in
// parallel.
func (c *collector) collect(ctx context.Context, msgs []*transcript.Message, lo, hi int) idChunk {
	// The sites are sized once, by a count of the chunk's call blocks and
	// results (a bound: a call or result without an id has no site), so
	// they are never regrown: each growth was a copy, and garbage the size
	// of the sites, live beside them while the chunk was read. They are
	// the previous pass's when large enough (takeSites).
	var ch idChunk
	calls, results := countSites(msgs[lo:hi])
	ch.calls, ch.results = takeSites(calls, results)
	if c.keys != nil && c.keys.m == nil {
		*c.keys = newKeyShard(0, 1, calls)
	}
	if c.replay && c.allow != nil {
		ch.lastReal = map[string]int{}
	}
	for i := lo; i < hi; i++ {
		if i%ctxCheckEvery == 0 {
			if ch.err = ctx.Err(); ch.err != nil {
				return ch
			}
		}
		m := msgs[i]
		if !m.IsObject() {
			continue
		}
		switch m.Role() {
		case transcript.RoleAssistant:
			c.collectCalls(&ch, i, m)
		case transcript.RoleToolResult:
			ids, ok := readResultIDs(m)
			if !ok {
				continue
			}
			real := !isSynthetic(m, c.synthetic)
			ch.results = append(ch.results, resultSite{msg: m, at: int32(i), k: ids.k, key: none, ref: resultRef{raw: ids.raw, real: real, callIDOnly: ids.callIDOnly}})
			if c.keys != nil {
				c.keys.intern(ids.k, &ch.results[len(ch.results)-1].key)
			}
			if real && ch.lastReal != nil {
				id, _ := m.ResultID()
				ch.lastReal[id] = i
			}
		}
	}
	return ch
}

// countSites bounds the sites collect finds in msgs: the tool-call blocks
// of the assistants, and the tool results.
func countSites(msgs []*transcript.Message) (calls, results int) {
	for _, m := range msgs {
		switch m.Role() {
		case transcript.RoleAssistant:
			blocks, _ := m.Blocks()
			for _, b := range blocks {
				if b.IsToolCall() {
					calls++
				}
			}
		case transcript.RoleToolResult:
			results++
		}
	}
	return calls, results
}

// collectCalls adds the calls of assistant m (message i) to ch, and m to
// its signed turns when it may keep its ids.
func (c *collector) collectCalls(ch *idChunk, i int, m *transcript.Message) {
	blocks, ok := m.Blocks()
	first, opens := len(ch.calls), true
	for b, raw := range idCalls(blocks) {
		trimmed := transcript.TrimID(raw)
		cs := callSite{block: b, at: int32(i), raw: raw, key: none, baseKey: none, secondKey: none,
			exact: len(trimmed) == len(raw), opens: opens, rawValid: c.limits.Valid(raw)}
		opens = false
		// A native id the target accepts is kept unless an earlier call
		// took it: its sanitised form is seldom needed.
		native := cs.exact && cs.rawValid && (c.openaiDup && isOpenAICallID(raw) || c.nativeToolu && isNativeToolUseID(raw))
		if !native {
			cs.base, cs.hasBase = c.san.first(raw)
			cs.baseValid = cs.hasBase && c.limits.Valid(cs.base)
			// strict9 cuts a longer id to nine characters, so such ids
			// often share their first candidate (toolu_01… gives
			// toolu01 and two more): the next one is computed here too.
			if c.san.mode == policy.IDModeStrict9 && len(raw) > strict9Len {
				cs.second, cs.hasSecond = strict9Hashed(raw, 0), true
				cs.secondValid = c.limits.Valid(cs.second)
			}
		}
		if c.keys != nil {
			c.keys.intern(trimmed, &cs.key)
			if cs.hasBase {
				c.keys.intern(cs.base, &cs.baseKey)
			}
			if cs.hasSecond {
				c.keys.intern(cs.second, &cs.secondKey)
			}
		}
		ch.calls = append(ch.calls, cs)
	}
	if c.replay && ok {
		if turn, ok := c.signedTurn(ch, i, m, blocks); ok {
			turn.first = first
			ch.turns = append(ch.turns, turn)
		}
	}
}

// idCalls yields the tool calls of blocks that have an id, with the id:
// the calls the id pass reads.
func idCalls(blocks []*transcript.Block) iter.Seq2[*transcript.Block, string] {
	return func(yield func(*transcript.Block, string) bool) {
		for _, b := range blocks {
			if !b.IsToolCall() {
				continue
			}
			if raw, ok := b.CallID(); ok && !yield(b, raw) {
				return
			}
		}
	}
}

// signedTurn returns assistant m (message i) as a signedTurn when it is one
// and passes every check of replaySafe that reads no other message.
//
// A turn qualifies when it has a thinking block and tool calls
// (toolCall/toolUse/functionCall), the target verifies its thinking
// (policy.VerifiesTurn: thinking another provider wrote does not bind its
// ids), and every call has input, a "id" that is non-blank and a valid name
// that needs no trimming. partialJson is not looked at. Beyond OpenClaw,
// every id must also be one the target accepts (IDLimits): a turn whose ids
// the provider would reject is not replay-safe, and its ids are rewritten.
// Its calls are appended to ch.turnCalls (and taken back when it does not
// qualify).
func (c *collector) signedTurn(ch *idChunk, i int, m *transcript.Message, blocks []*transcript.Block) (signedTurn, bool) {
	thinking, call := false, false
	for _, b := range blocks {
		switch b.Type() { // read once: each read decodes the member
		case transcript.BlockThinking, transcript.BlockRedactedThinking:
			thinking = true
		case transcript.BlockToolCall, transcript.BlockToolUse, transcript.BlockFunctionCall:
			call = true
		}
	}
	if !thinking || !call || !c.policy.VerifiesTurn(m) {
		return signedTurn{}, false
	}
	start := len(ch.turnCalls)
	for _, b := range blocks {
		if !b.IsToolCall() {
			continue
		}
		raw, _ := b.String("id")
		key := transcript.TrimID(raw)
		if !hasInput(b) || key == "" || !c.limits.Valid(raw) {
			ch.turnCalls = ch.turnCalls[:start]
			return signedTurn{}, false
		}
		name, ok := callName(b)
		if !ok || name != strings.TrimSpace(name) || !validToolName(name) {
			ch.turnCalls = ch.turnCalls[:start]
			return signedTurn{}, false
		}
		ch.turnCalls = append(ch.turnCalls, turnCall{raw: raw, key: key, allowed: c.allow.allows(name)})
	}
	end := len(ch.turnCalls)
	return signedTurn{at: i, calls: ch.turnCalls[start:end:end]}, true
}

// preserve finds the replay-safe signed-thinking turns whose call ids the id
// rule must keep (spec §3.6, newer build), in history order, reserves their
// raw ids in the resolver and marks their call sites preserved.
//
// A signed turn (see signedTurn) is replay-safe when, beyond the checks the
// collect phase made, every call's id is unique within the turn and not
// reserved by an earlier preserved turn, and its name is allowed, or the
// call already has a real (non-synthetic) result later in the history.
func (r *resolver) preserve(chunks []idChunk) {
	var lastReal map[string]int
	for i := range chunks {
		if chunks[i].lastReal == nil {
			continue
		}
		if lastReal == nil {
			lastReal = map[string]int{}
		}
		for k, at := range chunks[i].lastReal {
			lastReal[k] = max(lastReal[k], at)
		}
	}
	for i := range chunks {
		for _, turn := range chunks[i].turns {
			if !r.replaySafe(turn, lastReal) {
				continue
			}
			for j, c := range turn.calls {
				r.reserve(c.raw)
				chunks[i].calls[turn.first+j].preserved = true
			}
		}
	}
}

// replaySafe makes the checks of a signed turn that read the other turns.
// (A turn has a few calls: a repeated id is looked for among the earlier
// ones.)
func (r *resolver) replaySafe(turn signedTurn, lastReal map[string]int) bool {
	for j, c := range turn.calls {
		if r.taken(c.raw) {
			return false
		}
		for _, earlier := range turn.calls[:j] {
			if earlier.raw == c.raw {
				return false
			}
		}
		if !c.allowed && lastReal[c.key] <= turn.at {
			return false
		}
	}
	return true
}

package toolcalls

import (
	"context"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// fitLimits rewrites only the ids the target rejects, for a policy that does
// not sanitise ids but whose target limits them (the OpenAI Responses row:
// ids off, call_id at most 64 characters; a passthrough Chat Completions
// row: 40; an Anthropic-wire row without id sanitising: the Anthropic
// pattern).
//
// Ids are grouped by their trimmed value, the way pairing repair compares
// them. A group is rewritten when any of its call ids or result id members is
// rejected; all its members then get one new id: the trimmed value itself
// when the target accepts it, otherwise fitID. New ids are kept apart from
// every other group, so the rewrite pairs exactly what was paired before.
//
// Collecting the ids and rewriting them run per chunk of messages, in
// parallel on the job's Fanout for a large history (stage.ChunkResults);
// the chunks' ids are merged in chunk order, so the groups, their order of
// first appearance and their new ids are the sequential run's.
func fitLimits(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	p := env.Policy
	lim := p.IDLimits
	chunks := stage.ChunkResults(env, len(t.Messages), func(lo, hi int) limitChunk {
		return collectLimits(ctx, p, t.Messages, lo, hi)
	})
	anyBad := false
	for _, ch := range chunks {
		if ch.err != nil {
			return ch.err
		}
		anyBad = anyBad || ch.anyBad
	}
	if !anyBad {
		return nil
	}
	bad := map[string]bool{} // trimmed id → rejected somewhere
	var order []string       // trimmed ids in order of first appearance
	for _, ch := range chunks {
		for _, k := range ch.order {
			rejected, seen := bad[k]
			if !seen {
				order = append(order, k)
			}
			bad[k] = rejected || ch.bad[k]
		}
	}
	used := make(idSet, len(order))
	for _, k := range order {
		if !bad[k] {
			used[k] = struct{}{}
		}
	}
	newID := map[string]string{}
	for _, k := range order {
		if !bad[k] {
			continue
		}
		id, ok := fitGroup(p, k, used)
		if !ok {
			return errNoAcceptedID(k, lim)
		}
		used[id] = struct{}{}
		newID[k] = id
	}
	counts := make([]idCounts, len(chunks))
	runChunks(env, len(chunks), func(c int) {
		counts[c] = rewriteLimits(t.Messages[chunks[c].lo:chunks[c].hi], newID)
	})
	total := sumCounts(counts)
	env.Report.Add(idsStage, "calls_rewritten", total.calls)
	env.Report.Add(idsStage, "results_rewritten", total.results)
	return nil
}

// limitChunk is what fitLimits collects in messages [lo, hi): each trimmed
// id in order of first appearance and whether the target rejects it
// somewhere in the chunk, or the context's error that stopped it.
type limitChunk struct {
	lo, hi int
	bad    map[string]bool
	order  []string
	anyBad bool
	err    error
}

// collectLimits collects the ids of messages [lo, hi) for fitLimits.
func collectLimits(ctx context.Context, p policy.Policy, msgs []*transcript.Message, lo, hi int) limitChunk {
	ch := limitChunk{lo: lo, hi: hi, bad: map[string]bool{}}
	see := func(raw string, _ func(string)) {
		k := transcript.TrimID(raw)
		if k == "" {
			return
		}
		rejected, seen := ch.bad[k]
		if !seen {
			ch.order = append(ch.order, k)
		}
		rejected = rejected || !accepts(p, raw)
		ch.bad[k] = rejected
		ch.anyBad = ch.anyBad || rejected
	}
	for i := lo; i < hi; i++ {
		if i%ctxCheckEvery == 0 {
			if ch.err = ctx.Err(); ch.err != nil {
				return ch
			}
		}
		forEachID(msgs[i], see)
	}
	return ch
}

// rewriteLimits gives every id of msgs whose group has a new id that id,
// and counts the changes.
func rewriteLimits(msgs []*transcript.Message, newID map[string]string) idCounts {
	var n idCounts
	for _, m := range msgs {
		forEachID(m, func(raw string, set func(string)) {
			id, ok := newID[transcript.TrimID(raw)]
			if !ok || id == raw {
				return
			}
			set(id)
			if m.Role() == transcript.RoleAssistant {
				n.calls++
			} else {
				n.results++
			}
		})
	}
	return n
}

// accepts reports whether the target accepts a tool-call id as it stands,
// judged as the contract judges it: on the values the wire carries. An
// OpenAI Responses id "call_id|fc_item" is sent as two values
// (contract.SplitCallItem); the documented limit (64 characters) is the
// call_id's, and the item id has its own (Contract.ItemIDs). Item ids are
// the provider's own and are left as they are.
func accepts(p policy.Policy, id string) bool {
	call, item := p.Contract.WireIDs(id)
	return p.IDLimits.Valid(call) && (item == "" || p.Contract.ItemIDs.Valid(item))
}

// fitGroup returns the new id of a rejected group with trimmed id k that is
// not in used: k itself when the target accepts it, else a fitted id. For a
// Responses "call|item" pair only the call part is fitted and the item part
// is kept, so the item still pairs with its reasoning.
func fitGroup(p policy.Policy, k string, used idSet) (string, bool) {
	lim := p.IDLimits
	if _, taken := used[k]; !taken && accepts(p, k) {
		return k, true
	}
	call, item, pair := contract.SplitCallItem(k)
	if !p.Contract.SplitIDs || !pair {
		return fitID(k, lim, used)
	}
	maxLen := lim.MaxLen
	if maxLen <= 0 {
		maxLen = fitDefaultMaxLen
	}
	a := alnum(call)
	for i := 0; i < fitMaxAttempts; i++ {
		c := truncate(a, maxLen)
		if i > 0 {
			c = truncate(a, maxLen-fitHashLen) + sha256Hex(call + ":fit:" + strconv.Itoa(i))[:fitHashLen]
		}
		if !lim.Valid(c) {
			continue
		}
		if _, taken := used[c+"|"+item]; !taken {
			return c + "|" + item, true
		}
	}
	return "", false
}

// forEachID calls fn with every tool-call id of an assistant (the "id" of
// toolCall/toolUse/functionCall blocks) and every non-blank id member of a
// tool result, with a setter that replaces that id.
func forEachID(m *transcript.Message, fn func(raw string, set func(string))) {
	if !m.IsObject() {
		return
	}
	switch m.Role() {
	case transcript.RoleAssistant:
		blocks, _ := m.Blocks()
		for _, b := range blocks {
			if !b.IsToolCall() {
				continue
			}
			if raw, ok := b.CallID(); ok {
				fn(raw, func(id string) { b.SetString("id", id) })
			}
		}
	case transcript.RoleToolResult:
		for _, k := range transcript.ResultIDFields {
			if s, ok := m.String(k); ok && transcript.TrimID(s) != "" {
				fn(s, func(id string) { m.SetString(k, id) })
			}
		}
	}
}

package pairing

import (
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// repairChunked is repair split into up to k segments that run in parallel
// through fan, merged into the same messages and counts as one sequential
// run.
//
// Why a segment's repair is the sequential run's: a segment starts at an
// assistant with tool calls, so no result before it belongs to an earlier
// frame, and in-frame claims only ever see the open frame. The one way
// segments reach each other is the pools (step 3): a displaced result of a
// later segment is matched against the calls of earlier frames that have
// no real result (pending calls). So each segment is analysed alone, in
// parallel, counting its pending calls by id and recording each pool match
// of its displaced results with the candidates it saw. A segment is
// analysed again, with its pools seeded by the counts the segments before
// it leave pending, only where that seed would end one of its matches
// otherwise (a match takes a call exactly when it has one candidate); a
// segment whose single candidate is an earlier segment's call (a result
// moving back across the cut) is merged into the one before it. Then every
// match ends as it would in one run, and the emits (which edit the
// messages) run in parallel too. Counts are summed and reported once, so
// the report is the same as well.
func repairChunked(msgs []*transcript.Message, opts repairOptions, k int, fan stage.Fanout) ([]*transcript.Message, repairCounts) {
	segs := analyzeSegments(msgs, k, fan)
	outs := make([][]*transcript.Message, len(segs))
	fan.Run(len(segs), func(i int) { outs[i] = segs[i].state.emit(opts) })
	var c repairCounts
	same, total := true, 0
	for i, out := range outs {
		c.add(segs[i].state.c)
		total += len(out)
		in := segs[i].state.msgs
		same = same && len(out) == len(in) && (len(out) == 0 || &out[0] == &in[0])
	}
	if same {
		return msgs, c
	}
	merged := make([]*transcript.Message, 0, total)
	for _, out := range outs {
		merged = append(merged, out...)
	}
	return merged, c
}

// segment is one analysed run of consecutive messages.
type segment struct {
	start, end int
	state      *repairState
	seed       map[string]pendingCount // the earlier segments' pending calls its state was analysed with
	pending    map[string]pendingCount // what this segment leaves pending
}

// pendingCount is how many calls of one id are left with no result and
// with a synthetic one: what they add to that id's pool for later frames.
type pendingCount struct{ none, synthetic int }

// poolLookup is one match of a displaced result against its id's pool: the
// id, whether the result is synthetic, and how many candidates the pool
// held (a synthetic result only takes a call with no result), seed
// included. The match took a call exactly when there was one candidate.
type poolLookup struct {
	key        string
	synthetic  bool
	candidates int
}

// lookupOf records the match of ref against p (nil: no pool for its id).
func lookupOf(p *pool, ref resultRef) poolLookup {
	l := poolLookup{key: ref.key, synthetic: ref.synthetic}
	if p != nil {
		l.candidates = p.nNone
		if !ref.synthetic {
			l.candidates += p.nSyn
		}
	}
	return l
}

// seedMatters reports whether analysing g with seed instead of its own
// could end one of its pool matches otherwise: only then must it be
// analysed again (the rest of its analysis never reads the seed).
func (g *segment) seedMatters(seed map[string]pendingCount) bool {
	for _, l := range g.state.lookups {
		was, now := g.seed[l.key].candidates(l.synthetic), seed[l.key].candidates(l.synthetic)
		if was != now && (l.candidates == 1 || l.candidates-was+now == 1) {
			return true
		}
	}
	return false
}

// candidates is how many of the calls a result can take.
func (pc pendingCount) candidates(synthetic bool) int {
	if synthetic {
		return pc.none
	}
	return pc.none + pc.synthetic
}

// analyzeSegments cuts msgs at up to k-1 frame starts near equal lengths
// and analyses the segments in parallel, first alone, then each again
// with its pools seeded by what the segments before it leave pending where
// that seed would end one of its pool matches otherwise, until none would
// (segment j is settled after at most j+1 rounds; one or two in practice). A segment that would move a
// result back into an earlier segment is merged into the one before it.
func analyzeSegments(msgs []*transcript.Message, k int, fan stage.Fanout) []segment {
	n := len(msgs)
	var segs []segment
	start := 0
	for part := 1; part < k; part++ {
		c := max(part*n/k, start+1)
		for c < n && !opensFrame(msgs[c]) {
			c++
		}
		if c >= n {
			break
		}
		segs = append(segs, segment{start: start, end: c})
		start = c
	}
	segs = append(segs, segment{start: start, end: n})
	for {
		// A segment is settled when it and every one before it were
		// analysed with the seed the ones before it leave; a settled
		// segment that reached back is merged into the one before it.
		seed := map[string]pendingCount{}
		var stale []int
		for j := range segs {
			if j > 0 {
				seed = plus(seed, segs[j-1].pending)
			}
			// Otherwise the analysis with its own seed stands for one with
			// this seed, and keeps its own, which its lookups counted.
			if segs[j].state == nil || segs[j].seedMatters(seed) {
				segs[j].seed = seed
				stale = append(stale, j)
			}
		}
		firstStale := len(segs)
		if len(stale) > 0 {
			firstStale = stale[0]
		}
		merged := false
		for j := 1; j < firstStale; j++ {
			if segs[j].state.reachedBack {
				segs[j-1].end, segs[j-1].state = segs[j].end, nil
				segs = append(segs[:j], segs[j+1:]...)
				merged = true
				break
			}
		}
		switch {
		case merged:
			continue
		case len(stale) == 0:
			return segs
		}
		fan.Run(len(stale), func(i int) { segs[stale[i]].analyze(msgs) })
	}
}

// analyze runs the repair's analysis over the segment's messages, with its
// seed, and counts the calls of its own that it leaves pending.
func (g *segment) analyze(msgs []*transcript.Message) {
	g.state = analyze(msgs[g.start:g.end], g.seed)
	g.pending = map[string]pendingCount{}
	for o := range g.state.occs {
		oc := &g.state.occs[o]
		if oc.key == "" {
			continue // never in a pool (syncPools)
		}
		switch {
		case oc.result < 0:
			pc := g.pending[oc.key]
			pc.none++
			g.pending[oc.key] = pc
		case g.state.results[oc.result].synthetic:
			pc := g.pending[oc.key]
			pc.synthetic++
			g.pending[oc.key] = pc
		}
	}
}

// plus returns a + b as a new map.
func plus(a, b map[string]pendingCount) map[string]pendingCount {
	out := make(map[string]pendingCount, len(a)+len(b))
	for id, pc := range a {
		out[id] = pc
	}
	for id, pc := range b {
		o := out[id]
		out[id] = pendingCount{none: o.none + pc.none, synthetic: o.synthetic + pc.synthetic}
	}
	return out
}

// opensFrame reports whether m starts a frame, as repairState.add decides.
func opensFrame(m *transcript.Message) bool {
	return m.IsObject() && roleOf(m) == roleAssistant && len(m.ToolCalls()) > 0
}

// add adds the counts of another run.
func (c *repairCounts) add(o repairCounts) {
	c.synthetic += o.synthetic
	c.moved += o.moved
	c.orphan += o.orphan
	c.duplicate += o.duplicate
	c.replaced += o.replaced
	c.failedTurns += o.failedTurns
	c.failedResults += o.failedResults
	c.renamed += o.renamed
	c.adopted += o.adopted
	c.nulls += o.nulls
}

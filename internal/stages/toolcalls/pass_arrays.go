package toolcalls

import "sync"

// The id passes' largest arrays are reused from one pass to the next
// (ToolCallIDsInImagePass, then ToolCallIDs, of this job or the next): a
// chunk's call and result sites, the key table's shard maps, the resolver's
// states and occurrences. Each pass allocated its own, garbage the size of
// about half a short-message history's input (18 MB of a clean
// 100k-message history's 38), which the collector had to find room for
// under the job's memory limit. The pools are sync.Pools: they outlive one
// collection between the passes, not two, and what one P put back another
// P may miss, so the reuse is likely, not certain (on one P, certain with
// at most one collection between). A pass gives its arrays back cleared
// (releasePass) once its ids are written: what waits in the pools holds
// no string or message of the job.
var (
	sitePool   sync.Pool // of *siteArrays
	shardPool  sync.Pool // of map[string]int32, empty
	statesPool sync.Pool // of *resolverArrays
)

// siteArrays are one chunk's call and result sites, zero past their length.
type siteArrays struct {
	calls   []callSite
	results []resultSite
}

// resolverArrays are a resolver's states and occurrences, zero past their
// length.
type resolverArrays struct {
	states []keyState
	occs   []occurrence
}

// takeSites returns empty site arrays with room for calls and results
// sites: the pool's when they are large enough.
func takeSites(calls, results int) (cs []callSite, rs []resultSite) {
	if a, ok := sitePool.Get().(*siteArrays); ok {
		cs, rs = a.calls, a.results
	}
	if cap(cs) < calls {
		cs = make([]callSite, 0, calls)
	}
	if cap(rs) < results {
		rs = make([]resultSite, 0, results)
	}
	return cs[:0], rs[:0]
}

// takeShard returns an empty map for a shard of about hint ids: the pool's
// when it has one.
func takeShard(hint int) map[string]int32 {
	if m, ok := shardPool.Get().(map[string]int32); ok {
		return m
	}
	return make(map[string]int32, hint)
}

// takeResolverArrays returns size empty states (each emptyKey) and room
// for calls occurrences: the pool's arrays when they are large enough.
// New states get room for the ids the resolver adds as it goes
// (statesRoom), so that the first one does not copy every state into an
// array twice the size (the large suite's damaged 100k-message history: a
// copy of 4.8 MB, and 5.3 MB more allocated, for some 1,300 orphans' ids).
func takeResolverArrays(size int32, calls int) (states []keyState, occs []occurrence) {
	if a, ok := statesPool.Get().(*resolverArrays); ok {
		states, occs = a.states, a.occs
	}
	if cap(states) < int(size) {
		states = make([]keyState, size, int(size)+statesRoom(size))
	}
	if cap(occs) < calls {
		occs = make([]occurrence, 0, calls)
	}
	states = states[:size]
	for i := range states {
		states[i] = emptyKey
	}
	return states, occs[:0]
}

// statesRoom is the room for added ids beyond size states: an eighth, and
// at least 64.
func statesRoom(size int32) int { return max(int(size)/8, 64) }

// releasePass clears the arrays of a pass that has written its ids (its
// chunks, key table and resolver: nothing reads them after) and gives
// them to the pools.
func releasePass(chunks []idChunk, keys *keyTable, r *resolver) {
	for i := range chunks {
		ch := &chunks[i]
		clear(ch.calls)
		clear(ch.results)
		sitePool.Put(&siteArrays{calls: ch.calls[:0], results: ch.results[:0]})
	}
	for j, m := range keys.shards {
		clear(m)
		shardPool.Put(m)
		keys.shards[j] = nil
	}
	clear(r.states)
	clear(r.occs)
	statesPool.Put(&resolverArrays{states: r.states[:0], occs: r.occs[:0]})
}

package stage

// ChunkResults runs a per-message rule over a history of n messages in
// contiguous chunks [lo, hi) of near-equal length, f once per chunk, some
// chunks in parallel: as many as env.Fanout.Chunks(n) gives, or one call
// f(0, n) without a Fanout. It returns the chunks' results in chunk order.
// f must edit only the messages of its chunk and read nothing another
// chunk edits, so that merging the results in order gives the sequential
// run's result.
func ChunkResults[T any](e *Env, n int, f func(lo, hi int) T) []T {
	k := e.chunks(n)
	out := make([]T, k)
	if k == 1 {
		out[0] = f(0, n)
		return out
	}
	e.Fanout.Run(k, func(c int) { out[c] = f(c*n/k, (c+1)*n/k) })
	return out
}

// EachChunk is ChunkResults for a rule that reads each chunk's result
// once, in order: it calls merge with each result, in chunk order, when
// every chunk has run. A history in one chunk, a small job's, then hands
// its one result over on the stack instead of in a slice; merge is only
// called, never kept, so it and what it captures stay on the caller's
// stack too. (Not in a rule written as a closure inside its constructor:
// stages.Default inlines the constructor, and compiled there the closure
// passes its functions to the generic call as escaping; there
// ChunkResults costs the same.)
func EachChunk[T any](e *Env, n int, f func(lo, hi int) T, merge func(T)) {
	if e.chunks(n) == 1 {
		merge(f(0, n))
		return
	}
	for _, r := range ChunkResults(e, n, f) {
		merge(r)
	}
}

// chunks is into how many chunks ChunkResults splits n messages.
func (e *Env) chunks(n int) int {
	if e.Fanout == nil || n <= 0 {
		return 1
	}
	return max(1, min(e.Fanout.Chunks(n), n))
}

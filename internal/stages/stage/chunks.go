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
// every chunk has run. A chunk's work is f(a, lo, hi): f a function of
// its own, no closure, and a what it reads (the messages, and what the
// rule found before). A history in one chunk, a small job's, then costs no
// allocation: its one result is handed over on the stack, merge is only
// called, never kept, and a goes to the heap only when the chunks run on
// several goroutines (chunkResultsOf). A closure as f would be moved to
// the heap on every call, with what it captures: a large history's chunks
// run on other goroutines.
func EachChunk[A, T any](e *Env, n int, a A, f func(a A, lo, hi int) T, merge func(T)) {
	if e.chunks(n) == 1 {
		merge(f(a, 0, n))
		return
	}
	for _, r := range chunkResultsOf(e, n, a, f) {
		merge(r)
	}
}

// chunkResultsOf is ChunkResults of f(a, lo, hi).
func chunkResultsOf[A, T any](e *Env, n int, a A, f func(a A, lo, hi int) T) []T {
	return ChunkResults(e, n, func(lo, hi int) T { return f(a, lo, hi) })
}

// OneChunk reports whether ChunkResults runs a history of n messages as
// one chunk, f(0, n) on the caller's goroutine: a rule may then do in its
// one pass what chunks run in parallel would do apart.
func (e *Env) OneChunk(n int) bool { return e.chunks(n) == 1 }

// chunks is into how many chunks ChunkResults splits n messages.
func (e *Env) chunks(n int) int {
	if e.Fanout == nil || n <= 0 {
		return 1
	}
	return max(1, min(e.Fanout.Chunks(n), n))
}

package stage

import "iter"

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

// Chunks is ChunkResults for a rule that reads each chunk's result once,
// in order (for c := range Chunks(...)): a history in one chunk, a small
// job's, then keeps its one result on the stack instead of in a slice.
func Chunks[T any](e *Env, n int, f func(lo, hi int) T) iter.Seq[T] {
	return func(yield func(T) bool) {
		if e.chunks(n) == 1 {
			yield(f(0, n))
			return
		}
		for _, r := range ChunkResults(e, n, f) {
			if !yield(r) {
				return
			}
		}
	}
}

// chunks is into how many chunks ChunkResults splits n messages.
func (e *Env) chunks(n int) int {
	if e.Fanout == nil || n <= 0 {
		return 1
	}
	return max(1, min(e.Fanout.Chunks(n), n))
}

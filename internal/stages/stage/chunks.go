package stage

// ChunkResults runs a per-message rule over a history of n messages in
// contiguous chunks [lo, hi) of near-equal length, f once per chunk, some
// chunks in parallel: as many as env.Fanout.Chunks(n) gives, or one call
// f(0, n) without a Fanout. It returns the chunks' results in chunk order.
// f must edit only the messages of its chunk and read nothing another
// chunk edits, so that merging the results in order gives the sequential
// run's result.
func ChunkResults[T any](e *Env, n int, f func(lo, hi int) T) []T {
	k := 1
	if e.Fanout != nil && n > 0 {
		k = max(1, min(e.Fanout.Chunks(n), n))
	}
	out := make([]T, k)
	if k == 1 {
		out[0] = f(0, n)
		return out
	}
	e.Fanout.Run(k, func(c int) { out[c] = f(c*n/k, (c+1)*n/k) })
	return out
}

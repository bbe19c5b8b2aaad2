package stage

import (
	"slices"
	"testing"
)

// seqFanout runs its k chunks one after another.
type seqFanout struct{ k int }

func (f seqFanout) Chunks(int) int         { return f.k }
func (f seqFanout) ChunksForBytes(int) int { return f.k }
func (f seqFanout) Run(k int, run func(int)) {
	for c := range k {
		run(c)
	}
}

// TestEachChunk: EachChunk merges ChunkResults' results in chunk order,
// with or without a Fanout, OneChunk says when ChunkResults runs one
// chunk, and a history in one chunk costs no allocation for its result.
func TestEachChunk(t *testing.T) {
	span := func(lo, hi int) [3]int { return [3]int{lo, hi, 0} }
	for _, e := range []*Env{{}, {Fanout: seqFanout{1}}, {Fanout: seqFanout{3}}, {Fanout: seqFanout{50}}} {
		for _, n := range []int{0, 1, 2, 10} {
			var got [][3]int
			EachChunk(e, n, 7, spanOf, func(c [3]int) { got = append(got, c) })
			want := ChunkResults(e, n, span)
			for i := range want {
				want[i][2] = 7 // what EachChunk handed each chunk
			}
			if !slices.Equal(got, want) {
				t.Errorf("fanout %v, %d messages: EachChunk %v, ChunkResults %v", e.Fanout, n, got, want)
			}
			if one := e.OneChunk(n); one != (len(want) == 1) {
				t.Errorf("fanout %v, %d messages: OneChunk %v, ChunkResults ran %d chunks", e.Fanout, n, one, len(want))
			}
		}
	}
	e := &Env{}
	msgs := make([]int, 10) // what a rule hands its chunks: a slice
	if n := testing.AllocsPerRun(100, func() {
		total := 0
		EachChunk(e, len(msgs), msgs, lenOf, func(c int) { total += c })
	}); n != 0 {
		t.Errorf("one chunk: %v allocations, want 0", n)
	}
}

// spanOf is a chunk's bounds and the argument it was handed.
func spanOf(a, lo, hi int) [3]int { return [3]int{lo, hi, a} }

// lenOf is the length of a chunk of s.
func lenOf(s []int, lo, hi int) int { return len(s[lo:hi]) }

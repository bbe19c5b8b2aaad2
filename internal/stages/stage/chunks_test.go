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
// with or without a Fanout, and a history in one chunk costs no
// allocation for its result.
func TestEachChunk(t *testing.T) {
	span := func(lo, hi int) [2]int { return [2]int{lo, hi} }
	for _, e := range []*Env{{}, {Fanout: seqFanout{1}}, {Fanout: seqFanout{3}}, {Fanout: seqFanout{50}}} {
		for _, n := range []int{0, 1, 2, 10} {
			var got [][2]int
			EachChunk(e, n, span, func(c [2]int) { got = append(got, c) })
			if want := ChunkResults(e, n, span); !slices.Equal(got, want) {
				t.Errorf("fanout %v, %d messages: EachChunk %v, ChunkResults %v", e.Fanout, n, got, want)
			}
		}
	}
	e := &Env{}
	if n := testing.AllocsPerRun(100, func() {
		total := 0
		EachChunk(e, 10, span, func(c [2]int) { total += c[1] })
	}); n != 0 {
		t.Errorf("one chunk: %v allocations, want 0", n)
	}
}

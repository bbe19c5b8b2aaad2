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

// TestChunks: Chunks yields ChunkResults' results in chunk order, with or
// without a Fanout, stops where the loop breaks, and a history in one
// chunk costs no allocation for its result.
func TestChunks(t *testing.T) {
	span := func(lo, hi int) [2]int { return [2]int{lo, hi} }
	for _, e := range []*Env{{}, {Fanout: seqFanout{1}}, {Fanout: seqFanout{3}}, {Fanout: seqFanout{50}}} {
		for _, n := range []int{0, 1, 2, 10} {
			want := ChunkResults(e, n, span)
			if got := slices.Collect(Chunks(e, n, span)); !slices.Equal(got, want) {
				t.Errorf("fanout %v, %d messages: Chunks %v, ChunkResults %v", e.Fanout, n, got, want)
			}
			for c := range Chunks(e, n, span) {
				if c != want[0] {
					t.Errorf("fanout %v, %d messages: first chunk %v, want %v", e.Fanout, n, c, want[0])
				}
				break
			}
		}
	}
	e := &Env{}
	if n := testing.AllocsPerRun(100, func() {
		for c := range Chunks(e, 10, span) {
			_ = c
		}
	}); n != 0 {
		t.Errorf("one chunk: %v allocations, want 0", n)
	}
}

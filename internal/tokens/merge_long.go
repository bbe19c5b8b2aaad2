package tokens

import "container/heap"

// longPiece is the piece length from which the merge keeps its candidate
// pairs in a heap (O(n log n)) instead of scanning them (O(n²)): a long
// run of letters or symbols (a base64 blob, a line of '=') stays cheap.
const longPiece = 256

// longPieceTokens is pieceTokens' merge with a heap: the same merges in the
// same order (lowest rank, then leftmost).
func (v *vocab) longPieceTokens(piece []byte) int {
	n := len(piece)
	next := make([]int32, n+1) // next boundary after boundary i; -1 at the end
	prev := make([]int32, n+1)
	rank := make([]uint32, n+1) // rank of the pair starting at boundary i
	alive := make([]bool, n+1)
	for i := range n + 1 {
		next[i], prev[i], rank[i], alive[i] = int32(i+1), int32(i-1), noRank, true
	}
	next[n] = -1
	pair := func(i int32) uint32 {
		j := next[i]
		if j < 0 || next[j] < 0 {
			return noRank
		}
		return v.rank(piece[i:next[j]])
	}
	h := make(pairHeap, 0, n)
	for i := int32(0); i+2 <= int32(n); i++ {
		if r := pair(i); r != noRank {
			rank[i] = r
			h = append(h, pairEntry{r, i})
		}
	}
	heap.Init(&h)
	parts := n
	for h.Len() > 0 {
		e := heap.Pop(&h).(pairEntry)
		if !alive[e.at] || rank[e.at] != e.rank {
			continue // stale
		}
		// Merge: boundary next[e.at] goes.
		gone := next[e.at]
		alive[gone] = false
		next[e.at] = next[gone]
		if next[gone] >= 0 {
			prev[next[gone]] = e.at
		}
		parts--
		for _, i := range [2]int32{e.at, prev[e.at]} {
			if i < 0 {
				continue
			}
			rank[i] = pair(i)
			if rank[i] != noRank {
				heap.Push(&h, pairEntry{rank[i], i})
			}
		}
	}
	return parts
}

// pairEntry is a candidate merge: the pair starting at boundary at.
type pairEntry struct {
	rank uint32
	at   int32
}

// pairHeap orders candidates by rank, then position.
type pairHeap []pairEntry

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	return h[i].rank < h[j].rank || h[i].rank == h[j].rank && h[i].at < h[j].at
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairEntry)) }
func (h *pairHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

package images

import "slices"

// qualities is the spec's JPEG quality ladder.
var qualities = []int{85, 75, 65, 55, 45, 35}

// sides is the spec's side ladder: the distinct values of
// [sideStart, 1800, 1600, 1400, 1200, 1000, 800], each clamped to
// maxDim, positive, sorted descending; sideStart = min(maxDim, max(w, h)).
//
// Each value is also clamped to sideStart: a thumbnail never enlarges, so a
// side above the image's longest side gives the same candidates as
// sideStart, and the spec's list would only encode them again.
func sides(maxDim, w, h int) []int {
	start := min(maxDim, max(w, h))
	out := make([]int, 0, 7)
	for _, v := range []int{start, 1800, 1600, 1400, 1200, 1000, 800} {
		v = min(start, v)
		if v > 0 && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

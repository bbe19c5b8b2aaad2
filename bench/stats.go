package main

import (
	"slices"
	"time"
)

// percentiles returns the latency in milliseconds at 0, 1, ..., 100 percent
// (nearest rank), or nil when there is none.
func percentiles(lat []time.Duration) []float64 {
	if len(lat) == 0 {
		return nil
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	out := make([]float64, 101)
	for p := range out {
		i := (p*len(s) + 99) / 100 // nearest rank: ceil(p/100 * n), 1-based
		out[p] = ms(s[max(i-1, 0)])
	}
	return out
}

//go:build race

package pipeline

// raceBuild is set under the race detector, whose instrumentation (and
// sync.Pool, which drops entries at random under it) changes allocation
// counts.
const raceBuild = true

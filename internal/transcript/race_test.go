//go:build race

package transcript

// raceBuild is set under the race detector, whose sync.Pool drops entries
// at random, so allocation counts of pooled buffers vary.
const raceBuild = true

//go:build race

package toolcalls

// raceBuild is set under the race detector, whose sync.Pool drops entries
// at random, so allocation counts of pooled arrays vary.
const raceBuild = true

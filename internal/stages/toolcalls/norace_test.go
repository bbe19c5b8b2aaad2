//go:build !race

package toolcalls

// raceBuild is set under the race detector (race_test.go).
const raceBuild = false

//go:build !race

package transcript

// raceBuild is set under the race detector (race_test.go).
const raceBuild = false

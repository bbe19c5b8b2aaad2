//go:build !race

package pipeline

// raceBuild is set under the race detector (race_test.go).
const raceBuild = false

//go:build !goexperiment.simd || !amd64

package jsontape

// vectorScan reports whether the string scan runs on vectors (run_simd.go;
// the tests turn it off there to compare the two scans).
// This build has no GOEXPERIMENT=simd, or is not amd64: it is the scalar
// scan of words.go.
var vectorScan = false

// plainRun returns the index of the first byte at or after i that is not
// printable ASCII other than the quote and the backslash (len(data) when
// there is none).
func plainRun(data []byte, i int) int { return plainRunWords(data, i) }

// utf8Run steps over the bytes of 0x80 and above at i inside a string, and
// reports whether they held invalid UTF-8: here one sequence at a time.
func utf8Run(data []byte, i int) (int, bool) { return utf8Rune(data, i) }

// blockCache is the scanner's structural index of the block read last:
// this build has none (see index_simd.go).
//
//lint:ignore U1000 the scanner's field of this type is empty here
type blockCache struct{}

// strCached and strBlocks are str on the structural index: this build
// has none, and reads every string in str.
func (s *scanner) strCached(int) (int, bool) { return 0, false }

func (s *scanner) strBlocks(int) (int, bool) { return 0, false }

//go:build !goexperiment.simd || !amd64

package media

// mayHoldMediaRef searches each marker on its own in a build without
// GOEXPERIMENT=simd on amd64 (see mayHoldMediaRefEach).
func mayHoldMediaRef(raw []byte) bool { return mayHoldMediaRefEach(raw) }

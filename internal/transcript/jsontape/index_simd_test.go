//go:build goexperiment.simd && amd64

package jsontape

import (
	"math/rand/v2"
	"testing"
)

// escapedBytewise is escapedBytes' definition, a byte at a time over a
// run of blocks: a backslash not itself escaped escapes the byte after it.
func escapedBytewise(backslash []uint64) []uint64 {
	escaped := make([]uint64, len(backslash))
	next := false
	for k := range len(backslash) * 64 {
		if next {
			escaped[k/64] |= 1 << (k % 64)
			next = false
		} else if backslash[k/64]&(1<<(k%64)) != 0 {
			next = true
		}
	}
	return escaped
}

// TestEscapedBytes checks the escape scanner, carry included, against its
// byte-at-a-time definition on runs of blocks dense with backslashes.
func TestEscapedBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		blocks := make([]uint64, 1+rng.IntN(3))
		for k := range blocks {
			switch rng.IntN(4) {
			case 0:
				blocks[k] = ^uint64(0) // a run across the whole block
			case 1:
				blocks[k] = rng.Uint64() | rng.Uint64()
			default:
				blocks[k] = rng.Uint64() & rng.Uint64()
			}
		}
		want := escapedBytewise(blocks)
		var carry uint64
		for k, b := range blocks {
			var got uint64
			got, carry = escapedBytes(b, carry)
			if got != want[k] {
				t.Fatalf("blocks %x: block %d escaped %x, want %x", blocks, k, got, want[k])
			}
		}
	}
}

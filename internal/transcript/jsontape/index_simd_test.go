//go:build goexperiment.simd && amd64

package jsontape

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
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

// TestUTF8Invalid checks the block's UTF-8 check against utf8.Valid on
// strings of random multi-byte text, valid and not, at every start and end
// inside a block, with any bytes before their opening quote and after
// their closing one (those must not count, whatever they are).
func TestUTF8Invalid(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", " ", "é", "日", "한", "😀", "\U0010ffff", "\xff", "\x80", "\xc3", "\xe6\x97", "\xf0\x9f\x98",
		"\xed\xa0\x80", "\xe0\x80\x80", "\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xc0\x80", "\xf5\x80\x80\x80"}
	for range 20000 {
		var b []byte
		for len(b) < 64+3+8 {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		base := 3 * rng.IntN(2) // the input's first block (zero before it) or one with three bytes before it
		data := b[:base+64+rng.IntN(8)]
		p := base + rng.IntN(64)
		q := p + rng.IntN(base+64-p) // the closing quote, in the block
		if p > 0 {
			data[p-1] = '"' // the opening quote; the bytes before it are any
		}
		data[q] = '"'
		check := (^uint64(0) << (p - base)) & (1<<(q-base+1) - 1)
		if got, want := utf8Invalid(data, base, p, check), !utf8.Valid(data[p:q]); got != want {
			t.Fatalf("utf8Invalid(%q, %d, %d) = %v, want %v (the string %q)", data, base, p, got, want, data[p:q])
		}
	}
}

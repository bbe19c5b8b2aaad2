//go:build goexperiment.simd && amd64

package jsontape

import (
	"math/bits"
	"simd/archsimd"
	"unicode/utf8"
)

// vectorScan reports whether the string scan runs on vectors: this build
// has GOEXPERIMENT=simd, and the CPU has AVX2 (two 32-byte halves of each
// 64-byte block). Without AVX2 the scan is the scalar one of words.go.
// AVX-512 would take a block in one load; the machines measured have none,
// so it is not written. The tests turn it off to compare the two scans.
var vectorScan = archsimd.X86.AVX2()

// plainRun returns the index of the first byte at or after i that is not
// printable ASCII other than the quote and the backslash (len(data) when
// there is none). Most strings are short (keys, roles, ids, short texts):
// their first 64 bytes are read a word at a time, which costs less there
// than the vectors' set-up, and this part is small enough to be inlined
// into the string scan; a longer run goes on 64 bytes a step.
func plainRun(data []byte, i int) int {
	if j := plainRunWords(data[:min(i+64, len(data))], i); j < i+64 {
		return j
	}
	return plainRunLong(data, i+64)
}

// plainRunLong is plainRun past a string's first 64 bytes: whole blocks on
// vectors, then the words of the tail.
func plainRunLong(data []byte, i int) int {
	if vectorScan {
		i = plainRunBlocks(data, i)
	}
	return plainRunWords(data, i)
}

// utf8Run steps over the bytes at i inside a string, from a byte of 0x80
// or above to the next quote, backslash or control byte (a block of
// multi-byte text in one step), and reports whether they hold invalid
// UTF-8. A multi-byte sequence never holds an ASCII byte, so the run's
// validity is that of each sequence in it, as the scalar scan reads them
// one at a time.
func utf8Run(data []byte, i int) (int, bool) {
	if !vectorScan {
		return utf8Rune(data, i)
	}
	end := textRunBlocks(data, i)
	end = textRunBytes(data, end)
	return end, !utf8.Valid(data[i:end])
}

// The bytes the vector scan compares with, each in all 32 lanes: loaded
// from memory, which costs less per call than a broadcast.
var (
	quoteBytes     = lanes('"')
	backslashBytes = lanes('\\')
	spaceBytes     = lanes(0x20)
	controlBytes   = lanes(0x1f)
)

func lanes(c byte) (a [32]uint8) {
	for k := range a {
		a[k] = c
	}
	return a
}

// plainRunBlocks steps over whole 64-byte blocks of plain bytes from i: it
// returns the index of the first byte that is not plain, or of the first
// byte of the last block that is not whole.
func plainRunBlocks(data []byte, i int) int { return runBlocks(data, i, false) }

// textRunBlocks steps over whole 64-byte blocks from i that hold no quote,
// backslash or control byte (any UTF-8, valid or not), as plainRunBlocks.
func textRunBlocks(data []byte, i int) int { return runBlocks(data, i, true) }

// runBlocks steps over whole 64-byte blocks from i that hold no quote, no
// backslash and no control byte, nor, unless text, a byte of 0x80 or above:
// the block's bitmask of those bytes (a bit per byte, from the two halves'
// compares) gives the first one.
func runBlocks(data []byte, i int, text bool) int {
	if i+64 > len(data) {
		return i
	}
	quote := archsimd.LoadUint8x32Array(&quoteBytes)
	backslash := archsimd.LoadUint8x32Array(&backslashBytes)
	control := archsimd.LoadUint8x32Array(&controlBytes)
	space := archsimd.LoadUint8x32Array(&spaceBytes).AsInt8x32()
	for ; i+64 <= len(data); i += 64 {
		block := (*[64]uint8)(data[i : i+64]) // one bounds check for both halves
		lo := archsimd.LoadUint8x32Array((*[32]uint8)(block[:32]))
		hi := archsimd.LoadUint8x32Array((*[32]uint8)(block[32:]))
		stopLo := lo.Equal(quote).Or(lo.Equal(backslash))
		stopHi := hi.Equal(quote).Or(hi.Equal(backslash))
		if text { // a control byte is its own minimum with 0x1f
			stopLo = stopLo.Or(lo.Min(control).Equal(lo))
			stopHi = stopHi.Or(hi.Min(control).Equal(hi))
		} else { // as signed bytes, below 0x20 is a control byte or 0x80 and above
			stopLo = stopLo.Or(lo.AsInt8x32().Less(space))
			stopHi = stopHi.Or(hi.AsInt8x32().Less(space))
		}
		if m := uint64(stopLo.ToBits()) | uint64(stopHi.ToBits())<<32; m != 0 {
			archsimd.ClearAVXUpperBits()
			return i + bits.TrailingZeros64(m)
		}
	}
	// The upper halves of the vector registers are cleared before scalar
	// code runs again (no false dependency for the SSE code of the
	// runtime's copies).
	archsimd.ClearAVXUpperBits()
	return i
}

// textRunBytes is textRunBlocks' tail, a byte at a time.
func textRunBytes(data []byte, i int) int {
	for i < len(data) {
		if c := data[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
		i++
	}
	return i
}

//go:build goexperiment.simd && amd64

package media

import (
	"bytes"
	"math/bits"
	"simd/archsimd"
)

// vectorSearch reports whether mayHoldMediaRef reads a text on vectors:
// this build has GOEXPERIMENT=simd and the CPU has AVX2. The tests turn it
// off to compare the two searches.
var vectorSearch = archsimd.X86.AVX2()

// vectorBlock is the bytes mayHoldMediaRefVector compares at a time.
const vectorBlock = 32

// mayHoldMediaRef reads a text of more than a block once for the three
// markers (mayHoldMediaRefVector) when the CPU has AVX2, and searches a
// shorter one for each marker on its own (mayHoldMediaRefEach).
func mayHoldMediaRef(raw []byte) bool {
	if vectorSearch && len(raw) > vectorBlock {
		return mayHoldMediaRefVector(raw)
	}
	return mayHoldMediaRefEach(raw)
}

// The bytes the vector search compares with, one per lane.
var (
	bracketBytes   = lanes('[')
	colonBytes     = lanes(':')
	backslashBytes = lanes('\\')
	uBytes         = lanes('u')
)

// lanes is c in every lane of a block.
func lanes(c byte) (a [vectorBlock]uint8) {
	for k := range a {
		a[k] = c
	}
	return a
}

// mayHoldMediaRefVector is mayHoldMediaRef for a text of at least
// vectorBlock+1 bytes, read once for the three markers: each block of 32
// bytes is compared with '[', ':' and '\' and the block one byte on with
// 'u' (a backslash followed by a 'u' is `\u`), and only a bracket and a
// colon are looked at further: for one of bracketedWords after the
// bracket, for the "media" before the colon. The bytes after the last whole
// block with a byte after it are searched as mayHoldMediaRef searches a
// short text: a marker across that boundary is found there, as the colon
// search looks back from the colon and a backslash's 'u' was compared in
// the block before.
func mayHoldMediaRefVector(raw []byte) bool {
	defer archsimd.ClearAVXUpperBits()
	bracket := archsimd.LoadUint8x32Array(&bracketBytes)
	colon := archsimd.LoadUint8x32Array(&colonBytes)
	backslash := archsimd.LoadUint8x32Array(&backslashBytes)
	u := archsimd.LoadUint8x32Array(&uBytes)
	i := 0
	for ; i+vectorBlock+1 <= len(raw); i += vectorBlock {
		v := archsimd.LoadUint8x32Array((*[vectorBlock]uint8)(raw[i : i+vectorBlock]))
		next := archsimd.LoadUint8x32Array((*[vectorBlock]uint8)(raw[i+1 : i+vectorBlock+1]))
		brackets := v.Equal(bracket)
		escapeU := v.Equal(backslash).And(next.Equal(u))
		if brackets.Or(escapeU).ToBits() != 0 { // one test for both, as prose has neither
			if escapeU.ToBits() != 0 {
				return true
			}
			for c := brackets.ToBits(); c != 0; c &= c - 1 {
				if startsBracketedWord(raw[i+bits.TrailingZeros32(c)+1:]) {
					return true
				}
			}
		}
		for c := v.Equal(colon).ToBits(); c != 0; c &= c - 1 {
			if p := i + bits.TrailingZeros32(c); p >= 5 && string(raw[p-5:p]) == "media" {
				return true
			}
		}
	}
	tail := raw[i:]
	return hasBracketedRef(tail) || hasMediaColon(raw[i-5:]) || bytes.Contains(tail, []byte(`\u`))
}

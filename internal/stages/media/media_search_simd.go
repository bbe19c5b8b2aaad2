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
	aBytes         = lanes('a')
	mBytes         = lanes('m')
	iBytes         = lanes('i')
	caseBits       = lanes(0x20) // set in a byte, an ASCII letter is lower case
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
// bytes, and the block one byte on, give the places a marker may start
// (candidates): a '[' followed by the first letter of one of
// bracketedWords, a backslash followed by a 'u' (`\u`), and an 'a'
// followed by a colon (the end of "media:"). Only those are looked at
// further (mediaRefAt): in tool output, full of brackets and colons, few
// are. The bytes after the last whole block with a byte after it are
// searched as mayHoldMediaRef searches a short text: a marker across that
// boundary is found there, as the colon search looks back from the colon,
// and the 'u' after a backslash, the word after a bracket and the colon
// after an 'a' were compared in the block before.
func mayHoldMediaRefVector(raw []byte) bool {
	defer archsimd.ClearAVXUpperBits()
	bracket := archsimd.LoadUint8x32Array(&bracketBytes)
	colon := archsimd.LoadUint8x32Array(&colonBytes)
	backslash := archsimd.LoadUint8x32Array(&backslashBytes)
	u := archsimd.LoadUint8x32Array(&uBytes)
	a := archsimd.LoadUint8x32Array(&aBytes)
	m := archsimd.LoadUint8x32Array(&mBytes)
	iLetter := archsimd.LoadUint8x32Array(&iBytes)
	caseBit := archsimd.LoadUint8x32Array(&caseBits)
	i := 0
	for ; i+vectorBlock+1 <= len(raw); i += vectorBlock {
		v := archsimd.LoadUint8x32Array((*[vectorBlock]uint8)(raw[i : i+vectorBlock]))
		next := archsimd.LoadUint8x32Array((*[vectorBlock]uint8)(raw[i+1 : i+vectorBlock+1]))
		nextLower := next.Or(caseBit) // 'M' and 'm' alike, 'I' and 'i'
		candidates := v.Equal(bracket).And(nextLower.Equal(m).Or(nextLower.Equal(iLetter))).
			Or(v.Equal(backslash).And(next.Equal(u))).
			Or(v.Equal(a).And(next.Equal(colon)))
		for c := candidates.ToBits(); c != 0; c &= c - 1 {
			if mediaRefAt(raw, i+bits.TrailingZeros32(c)) {
				return true
			}
		}
	}
	tail := raw[i:]
	return hasBracketedRef(tail) || hasMediaColon(raw[i-5:]) || bytes.Contains(tail, []byte(`\u`))
}

// mediaRefAt reports whether the candidate at raw[p] (see
// mayHoldMediaRefVector) starts a marker: a backslash is `\u`, a bracket
// must be followed by one of bracketedWords, an 'a' must end "media"
// before its colon.
func mediaRefAt(raw []byte, p int) bool {
	switch raw[p] {
	case '\\':
		return true
	case '[':
		return startsBracketedWord(raw[p+1:])
	default: // 'a'
		return p >= 4 && string(raw[p-4:p+2]) == "media:"
	}
}

package jsontape

import (
	"encoding/binary"
	"unicode/utf8"
)

// The scalar string scan: plainRun and utf8Run of the build without
// GOEXPERIMENT=simd (run.go), and the fallback of the vector scan
// (run_simd.go) on a CPU without AVX2 and for the tail of a block.

// Masks for plainRun's eight-bytes-a-step test: the well-known word tests
// "has a byte less than n" ((x - n*lowBits) &^ x & highBits, exact for
// n <= 128) and "has a zero byte" (the same with n = 1).
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// plainRunWords returns the index of the first byte at or after i that is not
// printable ASCII other than the quote and the backslash (len(data) when
// there is none). It tests eight bytes a step: base64 image data and long
// texts are most of a job's bytes, and nearly all of them are plain.
func plainRunWords(data []byte, i int) int {
	for i+8 <= len(data) {
		w := binary.LittleEndian.Uint64(data[i:])
		quote := w ^ ('"' * lowBits)
		backslash := w ^ ('\\' * lowBits)
		found := (w-0x20*lowBits)&^w | // some byte is below 0x20
			(quote-lowBits)&^quote | // some byte is '"'
			(backslash-lowBits)&^backslash | // some byte is '\\'
			w // some byte is 0x80 or above
		if found&highBits != 0 {
			break
		}
		i += 8
	}
	for i < len(data) && plainStringByte[data[i]] {
		i++
	}
	return i
}

// utf8Rune steps over the one UTF-8 sequence (or invalid byte) at i, a
// byte of 0x80 or above inside a string, and reports whether it is invalid.
func utf8Rune(data []byte, i int) (int, bool) {
	r, size := utf8.DecodeRune(data[i:])
	return i + size, r == utf8.RuneError && size == 1
}

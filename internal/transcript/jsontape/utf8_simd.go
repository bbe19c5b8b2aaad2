//go:build goexperiment.simd && amd64

package jsontape

import "simd/archsimd"

// The vector string scan's UTF-8 check, a 64-byte block of a string at a
// time, as Keiser and Lemire validate UTF-8 ("Validating UTF-8 in less
// than one instruction per byte", 2021). Every way a byte sequence is not
// UTF-8 shows in a byte and the one before it (utf8Errors), or in a
// continuation byte that is or is not the third or fourth of a sequence,
// which the two or three bytes before it say. Each of the first kind is a
// set of the first byte's high nibble, its low nibble and the second
// byte's high nibble: three table look-ups of 16 entries (one shuffle
// each) and their AND give a byte's errors. The bytes before a byte are
// read from memory at offsets 1, 2 and 3, so nothing is carried from one
// block to the next but whether it ends inside a sequence (endsCut).

// utf8Error is one way two adjacent bytes are not UTF-8: its bit, and the
// nibbles of the pair that make it, each set a bit per nibble value.
type utf8Error struct {
	bit                           uint8
	firstHigh, firstLow, nextHigh uint16
}

// nibbles returns the set of nibble values from lo to hi.
func nibbles(lo, hi int) uint16 { return uint16(1<<(hi+1) - 1<<lo) }

// utf8Errors are the ways two adjacent bytes are not UTF-8.
var utf8Errors = []utf8Error{
	// a lead byte followed by one that is not a continuation byte
	{0x01, nibbles(0xc, 0xf), nibbles(0, 0xf), nibbles(0, 7) | nibbles(0xc, 0xf)},
	// an ASCII byte followed by a continuation byte
	{0x02, nibbles(0, 7), nibbles(0, 0xf), nibbles(8, 0xb)},
	// E0 followed by 80-9F: an overlong three-byte form
	{0x04, nibbles(0xe, 0xe), nibbles(0, 0), nibbles(8, 9)},
	// F4 to FF followed by 90-BF: past U+10FFFF, or no lead at all
	{0x08, nibbles(0xf, 0xf), nibbles(4, 0xf), nibbles(9, 0xb)},
	// ED followed by A0-BF: a UTF-16 surrogate
	{0x10, nibbles(0xe, 0xe), nibbles(0xd, 0xd), nibbles(0xa, 0xb)},
	// C0 or C1 followed by a continuation byte: an overlong two-byte form
	{0x20, nibbles(0xc, 0xc), nibbles(0, 1), nibbles(8, 0xb)},
	// F0 followed by 80-8F (an overlong four-byte form), or F5 to FF
	{0x40, nibbles(0xf, 0xf), nibbles(0, 0) | nibbles(5, 0xf), nibbles(8, 8)},
	// two continuation bytes: an error unless the second is the third or
	// fourth byte of a sequence (utf8Continues)
	{utf8Continues, nibbles(8, 0xb), nibbles(0, 0xf), nibbles(8, 0xb)},
}

// utf8Continues is the bit of utf8Errors for two continuation bytes.
const utf8Continues = 0x80

// The three look-up tables of utf8Errors (by the first byte's high
// nibble, its low nibble, the next byte's high nibble), each 16 entries
// twice: a shuffle looks up within each 16-byte half of a vector.
var utf8ByFirstHigh, utf8ByFirstLow, utf8ByNextHigh = func() (fh, fl, nh [32]uint8) {
	for _, e := range utf8Errors {
		for v := range 32 {
			if e.firstHigh>>(v%16)&1 != 0 {
				fh[v] |= e.bit
			}
			if e.firstLow>>(v%16)&1 != 0 {
				fl[v] |= e.bit
			}
			if e.nextHigh>>(v%16)&1 != 0 {
				nh[v] |= e.bit
			}
		}
	}
	return fh, fl, nh
}()

// The bytes utf8Half compares with, in all 32 lanes.
var (
	lowNibble  = lanes(0x0f)
	notContinu = lanes(^uint8(utf8Continues))
	byte0xe0   = lanes(0xe0)
	byte0xf0   = lanes(0xf0)
)

// utf8Invalid reports whether the bytes of the string that starts at p,
// in the block at base, hold invalid UTF-8 at a bit of check (the string's
// bytes in the block and its closing quote, if there). Bytes before p do
// not count: the bytes a sequence's third and fourth byte are checked
// against are the string's own.
func utf8Invalid(data []byte, base, p int, check uint64) bool {
	var window *[67]uint8 // the block and the three bytes before it
	if base >= 3 && base+64 <= len(data) {
		window = (*[67]uint8)(data[base-3 : base+64])
	} else { // the input's first or last block: zero (ASCII) outside it
		var w [67]uint8
		from := max(base-3, 0)
		copy(w[from-(base-3):], data[from:min(base+64, len(data))])
		window = &w
	}
	bad0, cont0, third0 := utf8Half((*[35]uint8)(window[0:35]))
	bad1, cont1, third1 := utf8Half((*[35]uint8)(window[32:67]))
	archsimd.ClearAVXUpperBits()
	bad := uint64(bad0) | uint64(bad1)<<32
	third := uint64(third0) | uint64(third1)<<32
	if from := p + 2 - base; from > 0 { // a third byte's lead must be in the string
		third &= ^uint64(0) << min(from, 64)
	}
	bad |= (uint64(cont0) | uint64(cont1)<<32) ^ third
	return bad&check != 0
}

// utf8Half gives for the 32 bytes at w[3:] (w[0:3] the three before them)
// a bit per byte: its errors other than two continuation bytes, two
// continuation bytes, and whether it is the third or fourth byte of a
// sequence (the byte two before it leads three bytes or four, or the byte
// three before leads four).
func utf8Half(w *[35]uint8) (bad, cont, third uint32) {
	cur := archsimd.LoadUint8x32Array((*[32]uint8)(w[3:35]))
	prev1 := archsimd.LoadUint8x32Array((*[32]uint8)(w[2:34]))
	prev2 := archsimd.LoadUint8x32Array((*[32]uint8)(w[1:33]))
	prev3 := archsimd.LoadUint8x32Array((*[32]uint8)(w[0:32]))
	low := archsimd.LoadUint8x32Array(&lowNibble)
	high := func(v archsimd.Uint8x32) archsimd.Int8x32 {
		return v.AsUint16x16().ShiftAllRight(4).AsUint8x32().And(low).AsInt8x32()
	}
	errs := archsimd.LoadUint8x32Array(&utf8ByFirstHigh).PermuteOrZeroGrouped(high(prev1)).
		And(archsimd.LoadUint8x32Array(&utf8ByFirstLow).PermuteOrZeroGrouped(prev1.And(low).AsInt8x32())).
		And(archsimd.LoadUint8x32Array(&utf8ByNextHigh).PermuteOrZeroGrouped(high(cur)))
	var zero archsimd.Uint8x32
	bad = ^errs.And(archsimd.LoadUint8x32Array(&notContinu)).Equal(zero).ToBits()
	cont = errs.AsInt8x32().Less(zero.AsInt8x32()).ToBits()
	e0, f0 := archsimd.LoadUint8x32Array(&byte0xe0), archsimd.LoadUint8x32Array(&byte0xf0)
	third = prev2.Max(e0).Equal(prev2).Or(prev3.Max(f0).Equal(prev3)).ToBits()
	return bad, cont, third
}

// endsCut reports whether a block whose last three bytes are these ends
// inside a sequence: a lead byte last, or one of three bytes or four
// second to last, or one of four third to last.
func endsCut(last *[3]byte) bool {
	return last[2] >= 0xc0 || last[1] >= 0xe0 || last[0] >= 0xf0
}

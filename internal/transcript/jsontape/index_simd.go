//go:build goexperiment.simd && amd64

package jsontape

import (
	"math/bits"
	"simd/archsimd"
)

// The structural index: stage 1 of a simdjson-class scanner, a 64-byte
// block of the input at a time. A block's vector compares give a bit per
// byte for its quotes, backslashes, control bytes and bytes of 0x80 and
// above (blockIndex). The string scan (strBlocks) reads a string from
// these bitmasks instead of its bytes: the backslash runs give the escaped
// bytes (escapedBytes, their carry taken from block to block), the first
// quote not escaped is the string's end, and the bits below it say whether
// the string holds a control byte, an escape or a byte of 0x80 and above.
// The index of the last block read is kept in the scanner: the keys and
// short values of a message's members mostly share a block, which is read
// once for all of them.

// blockIndex is the structural index of the 64-byte block of the input at
// base (a multiple of 64 from the start of the data): a bit per byte, the
// block's first byte in bit 0. Bytes past the end of the input count as
// control bytes (a string that reaches them is unterminated).
type blockIndex struct {
	at                           int // base+1; 0 before the first block is read
	quote, backslash, ctrl, high uint64
	// stop has the bits of backslash, ctrl and high: a string whose bytes
	// have none of them is plain, and ends at its first quote.
	stop uint64
}

// blockCache is the scanner's index of the block it read last.
type blockCache struct {
	ix blockIndex
}

// block returns the index of the block at base, reading it unless it is
// the one read last.
func (s *scanner) block(base int) *blockIndex {
	if s.ix.at != base+1 {
		s.ix.read(s.data, base)
	}
	return &s.ix
}

// read fills x with the index of data's block at base.
func (x *blockIndex) read(data []byte, base int) {
	var lo, hi archsimd.Uint8x32
	valid := ^uint64(0)
	if base+64 <= len(data) {
		block := (*[64]uint8)(data[base : base+64]) // one bounds check for both halves
		lo = archsimd.LoadUint8x32Array((*[32]uint8)(block[:32]))
		hi = archsimd.LoadUint8x32Array((*[32]uint8)(block[32:]))
	} else { // the last block, short: zero bytes past the end
		var tail [64]uint8
		n := copy(tail[:], data[base:])
		valid = 1<<n - 1
		lo = archsimd.LoadUint8x32Array((*[32]uint8)(tail[:32]))
		hi = archsimd.LoadUint8x32Array((*[32]uint8)(tail[32:]))
	}
	quote := archsimd.LoadUint8x32Array(&quoteBytes)
	backslash := archsimd.LoadUint8x32Array(&backslashBytes)
	control := archsimd.LoadUint8x32Array(&controlBytes)
	var zero archsimd.Int8x32
	x.at = base + 1
	x.quote = bits64(lo.Equal(quote), hi.Equal(quote)) & valid
	x.backslash = bits64(lo.Equal(backslash), hi.Equal(backslash)) & valid
	// A control byte is its own minimum with 0x1f; as a signed byte, a
	// byte of 0x80 and above is negative.
	x.ctrl = bits64(lo.Min(control).Equal(lo), hi.Min(control).Equal(hi))
	x.high = bits64(lo.AsInt8x32().Less(zero), hi.AsInt8x32().Less(zero)) & valid
	x.stop = x.backslash | x.ctrl | x.high
	archsimd.ClearAVXUpperBits()
}

// bits64 joins the bitmasks of a block's two 32-byte halves.
func bits64(lo, hi archsimd.Mask8x32) uint64 {
	return uint64(lo.ToBits()) | uint64(hi.ToBits())<<32
}

// oddBits has the bits of a block's odd byte positions.
const oddBits = 0xaaaaaaaaaaaaaaaa

// escapedBytes returns the bytes of a block that a backslash escapes,
// given its backslashes and carry, 1 when its first byte is escaped (by
// the previous block's last backslash), and the carry for the next block.
// In a run of backslashes every other one escapes the byte after it: the
// run's length from its first backslash decides, which the subtraction
// gives for every run at once (simdjson's escape scanner).
func escapedBytes(backslash, carry uint64) (escaped, next uint64) {
	potential := backslash &^ carry // an escaped backslash escapes nothing
	// Past each run starting on an even byte, and on each odd byte: the
	// subtraction's borrows flip the run's bits and the byte after it.
	code := ((potential<<1 | oddBits) - potential) ^ oddBits
	escaped = code ^ (backslash | carry)
	escape := code & backslash // the backslashes that escape the byte after them
	return escaped, escape >> 63
}

// strCached is str for a string it can read from the block read last
// alone: one that ends in that block, with no escape, control byte or byte
// of 0x80 and above, as most keys and short values are. It returns the
// index past the string at the quote at i, and true, and clears
// s.escaped; or false and leaves s as it was. It is small enough to be
// inlined into the member loop and str.
func (s *scanner) strCached(i int) (int, bool) {
	p := i + 1
	x := &s.ix
	if x.at != p&^63+1 {
		return 0, false
	}
	live := ^uint64(0) << (p & 63)
	q := x.quote & live
	if q == 0 || x.stop&live&(q&-q-1) != 0 {
		return 0, false
	}
	s.escaped = false
	return p&^63 + bits.TrailingZeros64(q) + 1, true
}

// strBlocks is str on the structural index, for the strings it can take
// whole: it returns the index past the string at the quote at i, and true,
// when the string is terminated and holds no control byte and only escapes
// that are not of a UTF-16 surrogate (\uDxxx); it sets s.escaped and
// counts invalid UTF-8 as str does. Otherwise it returns false and leaves
// s as it was, and str reads the string a byte at a time, which gives the
// error at the byte where it is, or counts the lone surrogates.
func (s *scanner) strBlocks(i int) (int, bool) {
	data := s.data
	p := i + 1
	base := p &^ 63
	live := ^uint64(0) << (p & 63) // the block's bytes inside the string
	var carry uint64
	escaped, invalid := false, false
	pending := false // the block before ends in a sequence the next bytes complete
	for base < len(data) {
		x := s.block(base)
		quote := x.quote & live
		bs := x.backslash & live
		var esc uint64
		if bs != 0 || carry != 0 {
			esc, carry = escapedBytes(bs, carry)
			quote &^= esc
		}
		in := live // the string's bytes: up to its closing quote
		if quote != 0 {
			in &= quote&-quote - 1
		}
		if x.ctrl&in != 0 {
			return 0, false
		}
		escaped = escaped || bs&in != 0
		if x.high&in != 0 || pending {
			// the closing quote's bit too: a sequence it cuts short is
			// invalid there
			invalid = utf8Invalid(data, base, p, in|quote&-quote) || invalid
			pending = quote == 0 && base+64 <= len(data) && endsCut((*[3]byte)(data[base+61:base+64]))
		}
		if esc&in != 0 && !escapesValid(data, base, esc&in) {
			return 0, false
		}
		if quote != 0 {
			end := base + bits.TrailingZeros64(quote) + 1
			if invalid {
				s.invalidText++
			}
			s.escaped = escaped
			return end, true
		}
		base += 64
		live = ^uint64(0)
		if carry == 0 && !pending { // whole blocks of plain bytes, as the long run of a text or image data: only the stop test
			base = plainRunBlocks(data, base) &^ 63
		}
	}
	return 0, false
}

// escapesValid reports whether the escaped bytes of the block at base, the
// bits of esc, each make a valid escape other than that of a UTF-16
// surrogate.
func escapesValid(data []byte, base int, esc uint64) bool {
	for ; esc != 0; esc &= esc - 1 {
		at := base + bits.TrailingZeros64(esc)
		switch data[at] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if at+5 > len(data) || !isHex4(data[at+1:at+5]) || data[at+1]|0x20 == 'd' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

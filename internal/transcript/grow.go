package transcript

import (
	"strings"
	"unsafe"
)

// growUncleared returns dst with room for n more bytes, as slices.Grow
// does, except that a new array's room is not cleared first. Its callers
// write every byte of that room before anything reads it: the payload is
// appended, and appendTo checks that each part filled its region. In a
// worker that runs job after job the heap's memory is reused, and the
// runtime clears each large array it hands out again: for the 10 MB
// output of BenchmarkDefaultChain, 8 % of its profile, a second write of
// the whole output. The array is the one strings.Builder.Grow allocates
// (the standard library's allocation that is not cleared), taken from the
// builder's first string, which nothing reads after: only the returned
// slice holds the array.
func growUncleared(dst []byte, n int) []byte {
	if n <= cap(dst)-len(dst) {
		return dst
	}
	var b strings.Builder
	b.Grow(len(dst) + n)
	b.WriteByte(0) // a non-empty string, whose data is the array
	s := b.String()
	grown := unsafe.Slice(unsafe.StringData(s), b.Cap())[:len(dst)]
	copy(grown, dst)
	return grown
}

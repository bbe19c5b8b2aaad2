// Package uncleared allocates the large arrays a job writes whole before it
// reads them (its tape's entries, its payload) without the runtime clearing
// them first. A worker runs job after job, so the heap's memory is reused,
// and the runtime clears every large array it hands out again: a write of
// the whole array before the job's own, and every page of its capacity
// touched, where a tape sized for short messages uses a fraction of it. An
// array from here is read only where it was written (appended to, or
// checked filled), so stale bytes never reach an output.
//
// The arrays are the ones strings.Builder.Grow allocates, which the
// standard library does not clear (a builder's bytes are written before
// they are read); only types that hold no pointers may live in them, which
// Slice checks.
//
// May import: no package of this module.
package uncleared

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"
)

// Slice returns an empty slice of T with room for at least n elements,
// whose memory is not cleared: the caller appends to it, or writes an
// element before it reads it. T must hold no pointers (the collector does
// not scan the array); Slice panics otherwise.
func Slice[T any](n int) []T {
	t := reflect.TypeFor[T]()
	if holdsPointers(t) {
		panic(fmt.Sprintf("uncleared: %v holds pointers", t))
	}
	size := int(t.Size())
	if n <= 0 || size == 0 {
		return make([]T, 0, max(n, 0))
	}
	var b strings.Builder
	b.Grow(n * size)
	b.WriteByte(0) // a non-empty string, whose data is the array
	s := b.String()
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.StringData(s))), b.Cap()/size)[:0]
}

// Grow returns dst with room for n more elements, as slices.Grow does,
// except that a new array's room is not cleared (Slice).
func Grow[T any](dst []T, n int) []T {
	if n <= cap(dst)-len(dst) {
		return dst
	}
	return append(Slice[T](len(dst)+n), dst...)
}

// holdsPointers reports whether a value of t holds a pointer the collector
// must see.
func holdsPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return t.Len() > 0 && holdsPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return true
}

package uncleared

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// entry is a pointer-free struct with a word-aligned member, as the tape's
// entries are.
type entry struct {
	A, B uint32
	K    uint64
	F    [3]uint8
}

// TestSlice: the slice is empty, has the room asked for, is aligned for
// its elements, and keeps what is appended to it.
func TestSlice(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000, 1 << 18} {
		s := Slice[entry](n)
		if len(s) != 0 || cap(s) < n {
			t.Fatalf("Slice(%d): len %d cap %d", n, len(s), cap(s))
		}
		if at := uintptr(unsafe.Pointer(unsafe.SliceData(s))); cap(s) > 0 && at%unsafe.Alignof(entry{}) != 0 {
			t.Fatalf("Slice(%d): its array at %#x is not aligned for %d-byte words", n, at, unsafe.Alignof(entry{}))
		}
		for i := range cap(s) {
			s = append(s, entry{A: uint32(i), K: uint64(i) << 40, F: [3]uint8{byte(i)}})
		}
		for i, e := range s {
			if e.A != uint32(i) || e.K != uint64(i)<<40 || e.F[0] != byte(i) {
				t.Fatalf("Slice(%d): element %d is %+v", n, i, e)
			}
		}
	}
}

// TestGrow: the grown slice keeps dst's elements and has the room asked
// for; a dst with that room already is returned as it is.
func TestGrow(t *testing.T) {
	for _, tc := range []struct{ have, room, add int }{{0, 0, 1}, {0, 0, 5000}, {3, 0, 1 << 20}, {5, 8, 2}, {5, 8, 9}} {
		dst := make([]byte, tc.have, tc.have+tc.room)
		for i := range dst {
			dst[i] = byte('a' + i)
		}
		want := slices.Clone(dst)
		got := Grow(dst, tc.add)
		if !slices.Equal(got, want) || cap(got)-len(got) < tc.add {
			t.Fatalf("%+v: got len %d cap %d %q, want %q with room %d", tc, len(got), cap(got), got, want, tc.add)
		}
		if kept := tc.add <= tc.room; kept != (cap(got) == cap(dst)) {
			t.Fatalf("%+v: a dst with room must be returned as it is, and only then", tc)
		}
	}
}

// TestSliceRefusesPointers: a type the collector must scan is refused.
func TestSliceRefusesPointers(t *testing.T) {
	for name, f := range map[string]func(){
		"string":  func() { Slice[string](4) },
		"pointer": func() { Slice[*int](4) },
		"struct of a map": func() {
			Slice[struct {
				a int
				m map[int]int
			}](4)
		},
		"array of slices": func() { Slice[[2][]byte](4) },
		"interface":       func() { Slice[any](4) },
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.Contains(r, "holds pointers") {
					t.Errorf("%s: not refused (%v)", name, r)
				}
			}()
			f()
		}()
	}
	if holdsPointers(reflect.TypeFor[entry]()) {
		t.Fatal("entry has no pointers")
	}
}

package jsontape

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// messagesJSON is an array of n messages, each with a content array.
func messagesJSON(n int, word string) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":[{"type":"text","text":"%s %d"}],"timestamp":%d}`, word, i, i)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// TestReleasedTapesDecodeAsFresh: tapes decoded onto released arrays,
// of larger and smaller inputs in turn, record exactly what tapes on new
// arrays do; a released tape is empty (a read through it panics rather
// than read another job's entries), and releasing it again does nothing.
func TestReleasedTapesDecodeAsFresh(t *testing.T) {
	sizes := []int{200, 3, 2000, 50, 200, 0}
	fresh := make([][]*Tape, len(sizes))
	for i, n := range sizes {
		tapes, _, err := SplitArray(messagesJSON(n, "fresh"), 64, Parallel{})
		if err != nil {
			t.Fatal(err)
		}
		fresh[i] = tapes // never released: their arrays are new
	}
	for round := range 3 {
		for i, n := range sizes {
			data := messagesJSON(n, "fresh")
			tapes, _, err := SplitArray(data, 64, Parallel{})
			if err != nil {
				t.Fatal(err)
			}
			for k, tp := range tapes {
				want := fresh[i][k]
				if !reflect.DeepEqual(tp.Nodes, want.Nodes) || !reflect.DeepEqual(tp.Members, want.Members) || !reflect.DeepEqual(tp.Messages, want.Messages) {
					t.Fatalf("round %d, %d messages: the tape on released arrays differs from a fresh one", round, n)
				}
				tp.Release()
				if tp.Data != nil || tp.Nodes != nil || tp.Members != nil || tp.Messages != nil {
					t.Fatal("a released tape still holds its arrays or its input")
				}
				tp.Release()
				if n > 0 && !panics(func() { tp.Message(0) }) {
					t.Fatal("reading a released tape did not panic")
				}
			}
		}
	}
}

// TestReleasedArraysAreReused: a decode of an input of the size of one
// whose tape was released takes that tape's arrays. (sync.Pool may drop
// an entry, and does at random under the race detector: one reuse in 20
// tries is asked.)
func TestReleasedArraysAreReused(t *testing.T) {
	data := messagesJSON(300, "reused")
	if reusedOf(t, data, data) == 0 {
		t.Fatal("no decode took the arrays of the tape released before it")
	}
}

// reusedOf is in how many of 20 tries a decode of then took the arrays of
// the tape of first, released just before it.
func reusedOf(t *testing.T, first, then []byte) int {
	reused := 0
	for range 20 {
		tapes, _, err := SplitArray(first, 64, Parallel{})
		if err != nil {
			t.Fatal(err)
		}
		members := unsafe.SliceData(tapes[0].Members)
		tapes[0].Release()
		again, _, err := SplitArray(then, 64, Parallel{})
		if err != nil {
			t.Fatal(err)
		}
		if unsafe.SliceData(again[0].Members) == members {
			reused++
		}
		again[0].Release()
	}
	return reused
}

// TestReleasedArraysFitTheirClass: a small decode takes the arrays a
// smaller input of its pool class released (newTape sizes them for the
// class, classSpan), where arrays sized for that input alone were too
// small for it and a pool miss. (One reuse in 20 tries is asked, as in
// TestReleasedArraysAreReused.)
func TestReleasedArraysFitTheirClass(t *testing.T) {
	// messages of a few hundred bytes, as in a real history: arrays sized
	// for the input are not regrown (messagesJSON's tiny ones would be)
	word := strings.Repeat("fit ", 60)
	smaller, larger := messagesJSON(150, word), messagesJSON(200, word)
	if classSpan(len(smaller)) != classSpan(len(larger)) || len(larger) <= len(smaller) {
		t.Fatalf("%d and %d bytes are not a smaller and a larger input of one class", len(smaller), len(larger))
	}
	if reusedOf(t, smaller, larger) == 0 {
		t.Fatal("no decode took the arrays a smaller input of its class released")
	}
}

// TestReleaseBound: a tape whose arrays are over MaxPooledBytes is not
// kept; the pool's classes are where newTape looks.
func TestReleaseBound(t *testing.T) {
	big := &Tape{Members: make([]Member, 0, MaxPooledBytes/4)}
	if arraysBytes(big.Nodes, big.Members, big.Messages) <= MaxPooledBytes {
		t.Fatal("the test tape is not over the bound")
	}
	big.Release()
	for c := range tapePools {
		for range 4 {
			if a, _ := tapePools[c].Get().(*tapeArrays); a != nil && cap(a.members) >= MaxPooledBytes/4 {
				t.Fatalf("class %d holds the arrays of a tape over the bound", c)
			}
		}
	}
}

func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

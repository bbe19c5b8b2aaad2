package transcript

import (
	"bytes"
	"strings"
	"testing"
)

// TestGrowUncleared: the grown slice keeps dst's bytes and has the room
// asked for; a dst with that room already is returned as it is.
func TestGrowUncleared(t *testing.T) {
	for _, tc := range []struct{ have, room, add int }{{0, 0, 1}, {0, 0, 5000}, {3, 0, 1 << 20}, {5, 8, 2}, {5, 8, 9}} {
		dst := make([]byte, tc.have, tc.have+tc.room)
		for i := range dst {
			dst[i] = byte('a' + i)
		}
		want := bytes.Clone(dst)
		got := growUncleared(dst, tc.add)
		if !bytes.Equal(got, want) || cap(got)-len(got) < tc.add {
			t.Fatalf("%+v: got len %d cap %d %q, want %q with room %d", tc, len(got), cap(got), got, want, tc.add)
		}
		if kept := tc.add <= tc.room; kept != (cap(got) == cap(dst) && (len(dst) == 0 || &got[0] == &dst[0])) {
			t.Fatalf("%+v: a dst with room must be returned as it is, and only then", tc)
		}
	}
}

// TestAppendToRefusesAPartItsMeasureDoesNotFit: a part that writes fewer
// or more bytes than it measured, in one part or in several, makes
// appendTo panic rather than leave uncleared bytes of the heap in the list
// or lose the bytes past its region.
func TestAppendToRefusesAPartItsMeasureDoesNotFit(t *testing.T) {
	history := []byte(`[{"role":"user","content":"one"},{"role":"assistant","content":[{"type":"text","text":"two"}]},{"role":"user","content":"three"}]`)
	for _, parts := range []int{1, 3} {
		for _, off := range []int{-1, 1} {
			tr, err := FromMessages(history, Target{Provider: "openai", API: "openai-completions", Model: "gpt-5"})
			if err != nil {
				t.Fatal(err)
			}
			e := tr.EncodeMessages(Parallel{Chunks: parts, Run: func(n int, f func(int)) {
				for i := range n {
					f(i)
				}
			}})
			if got := e.appendTo(nil); !bytes.Equal(got, history) {
				t.Fatalf("%d parts: %s", parts, got)
			}
			e.parts[len(e.parts)-1].size += off
			e.size += off
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.Contains(r.(string), "did not write") {
						t.Fatalf("%d parts, measure off by %d: appendTo did not refuse (%v)", parts, off, r)
					}
				}()
				e.appendTo(nil)
			}()
		}
	}
}

package transcript

import (
	"bytes"
	"strings"
	"testing"
)

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

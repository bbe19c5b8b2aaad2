package toolcalls

import (
	"testing"
	"unsafe"
)

// The id passes keep a call site per tool call and a result site per tool
// result of the history, and a resolver occurrence per call: on a long
// history they are a large part of the pass's memory. Their sizes are
// pinned (at most these bytes on a 64-bit build) so that a field added to
// them, or one put where it adds padding, fails here instead of raising
// the peak memory of worker sanitize unnoticed.
func TestSiteSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"callSite", unsafe.Sizeof(callSite{}), 80},
		{"resultSite", unsafe.Sizeof(resultSite{}), 72},
		{"occurrence", unsafe.Sizeof(occurrence{}), 48},
	} {
		if c.got > c.want {
			t.Errorf("%s is %d bytes, more than %d", c.name, c.got, c.want)
		}
	}
}

package pairing

import (
	"testing"
	"unsafe"
)

// Pairing repair keeps an occurrence per tool call and a resultRef per
// tool result of the history: on a long one they are a large part of its
// memory. Their sizes are pinned (at most these bytes on a 64-bit build)
// so that a field added to them, or one put where it adds padding, fails
// here instead of raising the peak memory of worker sanitize unnoticed.
func TestRecordSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"occurrence", unsafe.Sizeof(occurrence{}), 48},
		{"resultRef", unsafe.Sizeof(resultRef{}), 48},
	} {
		if c.got > c.want {
			t.Errorf("%s is %d bytes, more than %d", c.name, c.got, c.want)
		}
	}
}

package redrive

import (
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// HeaderOriginalBytes marks a stand-in dead letter: the original value was
// too large for the dead-letter topic, so the letter holds only its first
// bytes, and this header gives the original's length. It is the name the
// transport issue's stand-in writes (pipeline.HeaderOriginalBytes on that
// branch); this is the one place the redrive checks it.
const HeaderOriginalBytes = "hygiene-original-bytes"

// StandIn reports whether letter's value is not the original job, and why:
// it carries HeaderOriginalBytes, or its value is empty (a worker before
// the stand-in wrote such a letter without its value, and no job is empty).
func StandIn(letter transport.Record) (bool, string) {
	if n, ok := letter.Header(HeaderOriginalBytes); ok {
		return true, fmt.Sprintf("a stand-in for an original of %s bytes (header %s)", n, HeaderOriginalBytes)
	}
	if len(letter.Value) == 0 {
		return true, "the value is empty (the original was not kept)"
	}
	return false, ""
}

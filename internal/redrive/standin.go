package redrive

import (
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// StandIn reports whether letter's value is not the original job, and why:
// it carries deadletter.HeaderOriginalBytes (the header the worker's stand-in
// for an original too large for the dead-letter topic writes), or its value is empty (a worker before
// the stand-in wrote such a letter without its value, and no job is empty).
func StandIn(letter transport.Record) (bool, string) {
	if n, ok := letter.Header(deadletter.HeaderOriginalBytes); ok {
		return true, fmt.Sprintf("a stand-in for an original of %s bytes (header %s)", n, deadletter.HeaderOriginalBytes)
	}
	if len(letter.Value) == 0 {
		return true, "the value is empty (the original was not kept)"
	}
	return false, ""
}

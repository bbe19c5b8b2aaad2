package redrive

import (
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// HeaderValue is the dead-letter header that says what the letter's value
// is; any value other than ValueOriginal means it is not the original job
// (for instance a stand-in for an original too large for the dead-letter
// topic). This is the one place the redrive checks it: the name must match
// the one the worker writes (the transport issue's stand-in marker).
const (
	HeaderValue   = "hygiene-value"
	ValueOriginal = "original"
)

// StandIn reports whether letter's value is not the original job, and why:
// its HeaderValue says so, or its value is empty (the worker writes a dead
// letter without its value when even the dead-letter topic refuses it, and
// no job is empty).
func StandIn(letter transport.Record) (bool, string) {
	if v, ok := letter.Header(HeaderValue); ok && string(v) != ValueOriginal {
		return true, fmt.Sprintf("header %s is %q, not %q", HeaderValue, v, ValueOriginal)
	}
	if len(letter.Value) == 0 {
		return true, "the value is empty (the original was not kept)"
	}
	return false, ""
}

package pipeline

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// W3C Trace Context headers (https://www.w3.org/TR/trace-context/), carried
// from a job record to its ready record unchanged (a dead letter keeps every
// header of the job anyway).
const (
	HeaderTraceparent = "traceparent"
	HeaderTracestate  = "tracestate"
)

// TraceHeaders returns the traceparent and tracestate headers of rec, in
// its order, or nil when it has neither. Kafka header names are
// case-sensitive, but the W3C names are defined lowercase and some clients
// capitalise them, so the match ignores case.
func TraceHeaders(rec transport.Record) []transport.Header {
	var out []transport.Header
	for _, h := range rec.Headers {
		if strings.EqualFold(h.Key, HeaderTraceparent) || strings.EqualFold(h.Key, HeaderTracestate) {
			out = append(out, h)
		}
	}
	return out
}

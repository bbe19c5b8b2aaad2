package pipeline

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// ProcessorFunc adapts a function to JobProcessor.
type ProcessorFunc func(ctx context.Context, rec transport.Record) (Outcome, error)

// Process calls f.
func (f ProcessorFunc) Process(ctx context.Context, rec transport.Record) (Outcome, error) {
	return f(ctx, rec)
}

// NoOp is the pipeline that does nothing: every record is ready as it is
// (its value is the payload, undecoded). Measured against the real
// processor it gives the runner's and the broker's ceiling.
var NoOp JobProcessor = ProcessorFunc(func(ctx context.Context, rec transport.Record) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	return Outcome{Ready: true, Payload: rec.Value, Tenant: tenantOfKey(rec.Key)}, nil
})

package pipeline

import (
	"errors"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// StageRunner names the runner itself in a dead letter: a panic outside any
// stage, or an output the ready topic refused.
const StageRunner = "runner"

// write writes rec, retrying transient errors with exponential backoff until
// the work context ends. ErrRecordTooLarge and ErrClosed are returned at once.
func (r *Runner) write(sink transport.Sink, rec transport.Record) error {
	backoff := r.cfg.RetryInitialBackoff
	for {
		err := sink.Write(r.work, rec)
		if err == nil || errors.Is(err, transport.ErrRecordTooLarge) || errors.Is(err, transport.ErrClosed) {
			return err
		}
		if r.work.Err() != nil {
			return fmt.Errorf("pipeline: writing the output of key %q: %w (the shutdown ended the retries)", rec.Key, err)
		}
		r.deps.Metrics.SinkRetries.Inc()
		r.log.Warn("writing an output failed; retrying", "key", string(rec.Key), "err", err, "backoff", backoff)
		if err := sleep(r.work, backoff); err != nil {
			return fmt.Errorf("pipeline: writing the output of key %q: %w (the shutdown ended the retries)", rec.Key, err)
		}
		backoff = min(2*backoff, r.cfg.RetryMaxBackoff)
	}
}

package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// StageRunner names the runner itself in a dead letter: a panic outside any
// stage, or an output the ready topic refused.
const StageRunner = "runner"

// standIn is the dead letter of rec for out cut down to maxBytes: the value
// is the original's first bytes (as many as fit beside the key and
// headers), the headers add the original's length and sha256,
// hygiene-source still names its offset, and hygiene-error says that the
// value is cut.
func standIn(rec transport.Record, out Outcome, maxBytes int) transport.Record {
	out.Error += fmt.Sprintf(" (the original value of %d bytes is larger than the dead-letter topic accepts; this value holds its first bytes, see %s and %s)",
		len(rec.Value), deadletter.HeaderOriginalBytes, deadletter.HeaderOriginalSHA256)
	dl := DeadLetter(rec, out)
	sum := sha256.Sum256(rec.Value)
	dl.Headers = append(dl.Headers,
		transport.Header{Key: deadletter.HeaderOriginalBytes, Value: strconv.AppendInt(nil, int64(len(rec.Value)), 10)},
		transport.Header{Key: deadletter.HeaderOriginalSHA256, Value: []byte(hex.EncodeToString(sum[:]))})
	dl.Value = nil
	room := maxBytes - dl.Size()
	dl.Value = rec.Value[:max(0, min(room, len(rec.Value)))]
	return dl
}

// DeadLetter builds the dead-letter record of rec: its key, its value byte
// for byte and its headers, plus the hygiene-error-code, hygiene-error,
// hygiene-stage and hygiene-source headers.
func DeadLetter(rec transport.Record, out Outcome) transport.Record {
	headers := make([]transport.Header, 0, 4+len(rec.Headers))
	headers = append(headers,
		transport.Header{Key: deadletter.HeaderErrorCode, Value: []byte(out.Code)},
		transport.Header{Key: deadletter.HeaderError, Value: []byte(out.Error)},
		transport.Header{Key: deadletter.HeaderStage, Value: []byte(out.Stage)},
		transport.Header{Key: deadletter.HeaderSource, Value: []byte(rec.SourceRef())},
	)
	headers = append(headers, rec.Headers...)
	return transport.Record{Key: rec.Key, Value: rec.Value, Headers: headers}
}

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

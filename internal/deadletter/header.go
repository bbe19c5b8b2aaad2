package deadletter

import (
	"errors"
	"fmt"
	"slices"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// Dead-letter record headers (design §2).
const (
	HeaderErrorCode = "hygiene-error-code"
	HeaderError     = "hygiene-error"
	HeaderStage     = "hygiene-stage"
	HeaderSource    = "hygiene-source"
	// HeaderOriginalBytes and HeaderOriginalSHA256 mark a stand-in dead
	// letter: the original value was too large for the dead-letter topic,
	// so the value holds only its first bytes; these give the original's
	// length and its sha256 (hex).
	HeaderOriginalBytes  = "hygiene-original-bytes"
	HeaderOriginalSHA256 = "hygiene-original-sha256"
)

// headers are every header a dead letter adds to its job's own.
var headers = []string{HeaderErrorCode, HeaderError, HeaderStage, HeaderSource, HeaderOriginalBytes, HeaderOriginalSHA256}

// Letter is what a dead letter says of its job, one field a header.
type Letter struct {
	Code   Code   // hygiene-error-code
	Error  string // hygiene-error: the sentence (see Sentence), a bug's stack after it
	Stage  string // hygiene-stage: the stage that refused the job, "decode" or "runner"
	Source string // hygiene-source: the job record's topic/partition/offset
}

// Record builds the dead letter of job: its key, its value byte for byte,
// and the letter's four headers before the job's own.
func Record(job transport.Record, l Letter) transport.Record {
	h := make([]transport.Header, 0, 4+len(job.Headers))
	h = append(h,
		transport.Header{Key: HeaderErrorCode, Value: []byte(l.Code)},
		transport.Header{Key: HeaderError, Value: []byte(l.Error)},
		transport.Header{Key: HeaderStage, Value: []byte(l.Stage)},
		transport.Header{Key: HeaderSource, Value: []byte(l.Source)},
	)
	h = append(h, job.Headers...)
	return transport.Record{Key: job.Key, Value: job.Value, Headers: h}
}

// Read is the Letter a dead letter's headers carry; ok is false when it has
// no hygiene-error-code (it is no dead letter of the worker's).
func Read(letter transport.Record) (l Letter, ok bool) {
	code, ok := letter.Header(HeaderErrorCode)
	if !ok {
		return Letter{}, false
	}
	msg, _ := letter.Header(HeaderError)
	stage, _ := letter.Header(HeaderStage)
	source, _ := letter.Header(HeaderSource)
	return Letter{Code: Code(code), Error: string(msg), Stage: string(stage), Source: string(source)}, true
}

// Original is the job record letter was made from: its key, value and
// headers without the dead-letter headers. Its error says why the value is
// not the job, when it is not: a stand-in (HeaderOriginalBytes), or an
// empty value (a worker before the stand-in wrote such a letter without
// its value, and no job is empty).
func Original(letter transport.Record) (transport.Record, error) {
	if n, ok := letter.Header(HeaderOriginalBytes); ok {
		return transport.Record{}, fmt.Errorf("a stand-in for an original of %s bytes (header %s)", n, HeaderOriginalBytes)
	}
	if len(letter.Value) == 0 {
		return transport.Record{}, errors.New("the value is empty (the original was not kept)")
	}
	job := transport.Record{Key: letter.Key, Value: letter.Value}
	for _, h := range letter.Headers {
		if !slices.Contains(headers, h.Key) {
			job.Headers = append(job.Headers, h)
		}
	}
	return job, nil
}

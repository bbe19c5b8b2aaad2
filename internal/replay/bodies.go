package replay

import (
	"bytes"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// decodeBodies reads a session logged as provider request bodies of
// format from (Options.From), one JSON object a line, as an SDK app logs
// its successive requests: each request carries the whole history so far,
// so the last body is the session. Lines that are not JSON objects are
// dropped and counted, as the session-file repair counts its malformed
// lines; a file with no body is an invalid_job. The transcript carries the
// body as its Input, which the pipeline parses (request_format and
// request): the output is the body's history sanitized for target.
// The job and session ids are the file's path relative to its input.
func decodeBodies(data []byte, id, from string, target transcript.Target, lim transcript.Limits) (*transcript.Transcript, error) {
	var last []byte
	dropped := 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' || transcript.Valid(line, lim.WithDefaults().MaxDepth) != nil {
			dropped++
			continue
		}
		last = line
	}
	if last == nil {
		return nil, &transcript.Error{Code: deadletter.CodeInvalidJob, Msg: "no request body line in the file"}
	}
	return &transcript.Transcript{JobID: id, SessionID: id, Target: target, InputBytes: len(last),
		Input:  &transcript.Request{Format: from, Body: last},
		Repair: &transcript.RepairReport{DroppedLines: dropped}}, nil
}

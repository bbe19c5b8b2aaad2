package main

import (
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// requestMessages reads the history of a job that carries a provider
// request body (request_format and request) instead of messages, as the
// pipeline parses it for the target tg (with the job's options.source):
// the message array `worker check` checks. ok is false when the job has no
// request.
func requestMessages(top *transcript.Object, tg transcript.Target) (msgs []byte, ok bool, err error) {
	format, okFormat := top.String("request_format")
	body, okBody := top.Get("request")
	if !okFormat || !okBody {
		return nil, false, nil
	}
	f, known := wire.ParseFormat(format)
	if !known {
		return nil, true, fmt.Errorf("request_format: %q is not one of %v", format, wire.Formats)
	}
	var source string
	if rawOptions, has := top.Get("options"); has {
		if opts, err := transcript.ParseObject(rawOptions); err == nil {
			source, _ = opts.String("source")
		}
	}
	src, err := wire.SourceOf(f, source)
	if err != nil {
		return nil, true, err
	}
	parsed, err := wire.Parse(f, body, src, wire.FormatFor(policy.Resolve(tg)))
	if err != nil {
		return nil, true, err
	}
	return parsed.Messages, true, nil
}

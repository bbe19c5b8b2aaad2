package legacy

import (
	"errors"
	"fmt"
)

// Code is a dead-letter code of design §2: why a job became a dead letter
// (a decode failure, a stage's refusal, the processor's or runner's own).
// It is the one type of the codes, in Outcomes, headers and metrics.
type Code string

// The decode error codes.
const (
	CodeInvalidJSON     Code = "invalid_json"      // not JSON, or nested too deep
	CodeInvalidJob      Code = "invalid_job"       // JSON, but not a job: a field is missing or has the wrong type
	CodeInvalidTarget   Code = "invalid_target"    // the target names no provider and no API
	CodePayloadTooLarge Code = "payload_too_large" // over the configured bytes or messages per job, or the target's request size
)

// The dead-letter codes of a job that decoded but cannot be sent to its
// target (the final stages, package stages/sendable).
const (
	CodeEmptyHistory Code = "empty_history" // no message, or no user turn, is left to send
	CodeUnsendable   Code = "unsendable"    // the sanitized transcript breaks the target's contract
)

// The dead-letter codes of the processor and the runner: the record's
// compression could not be read, a bug (a stage's error or panic), the
// output over the record size.
const (
	CodeDecompressionFailed Code = "decompression_failed"
	CodeInternalError       Code = "internal_error"
	CodeOutputTooLarge      Code = "output_too_large"
)

// Error is a decode failure. Path names the field, in the form
// `messages[41].content[2]`, when one is to blame.
type Error struct {
	Code Code
	Path string
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func errorf(code Code, path, format string, args ...any) *Error {
	return &Error{Code: code, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the Code of a decode error, or "" for other errors.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// jsonError turns a scanner error into a decode error at path.
func jsonError(path string, err error) *Error {
	return errorf(CodeInvalidJSON, path, "%v", err)
}

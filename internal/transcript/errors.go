package transcript

import (
	"errors"
	"fmt"
)

// Code classifies why an input could not be decoded. The values are the
// dead-letter codes of design §2.
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

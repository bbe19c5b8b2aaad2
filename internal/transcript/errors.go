package transcript

import (
	"errors"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
)

// Error is a decode failure. Path names the field, in the form
// `messages[41].content[2]`, when one is to blame.
type Error struct {
	Code deadletter.Code
	Path string
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func errorf(code deadletter.Code, path, format string, args ...any) *Error {
	return &Error{Code: code, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the Code of a decode error, or "" for other errors.
func ErrorCode(err error) deadletter.Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// jsonError turns a scanner error into a decode error at path.
func jsonError(path string, err error) *Error {
	return errorf(deadletter.CodeInvalidJSON, path, "%v", err)
}

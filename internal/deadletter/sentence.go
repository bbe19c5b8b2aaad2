package deadletter

import (
	"bytes"
	"strings"
)

// stackLines is how many lines of a stack trace a bug's hygiene-error
// keeps: enough to locate the bug without flooding the header.
const stackLines = 12

// WithStack is the hygiene-error of a bug: the sentence msg, then the first
// lines of stack (runtime/debug.Stack) on the lines after it.
func WithStack(msg string, stack []byte) string {
	lines := bytes.SplitN(stack, []byte{'\n'}, stackLines+1)
	if len(lines) > stackLines {
		lines = lines[:stackLines]
	}
	return msg + "\n" + string(bytes.Join(lines, []byte{'\n'}))
}

// Sentence is the sentence of a dead letter's error: its first line, what
// a summary, a log line or a command's stderr shows. The whole error, a
// bug's stack included, stays in the hygiene-error header.
func Sentence(msg string) string {
	first, _, _ := strings.Cut(msg, "\n")
	return first
}

package pairing

import (
	"bytes"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// The roles the pairing rules tell apart.
const (
	roleOther = iota
	roleResult
	roleAssistant
)

var (
	rawToolResult = []byte(`"` + transcript.RoleToolResult + `"`)
	rawAssistant  = []byte(`"` + transcript.RoleAssistant + `"`)
	rawError      = []byte(`"` + transcript.StopError + `"`)
	rawAborted    = []byte(`"` + transcript.StopAborted + `"`)
)

// failedTurn reports whether an assistant stopped with "error" or
// "aborted", without decoding the string in the common case.
func failedTurn(m *transcript.Message) bool {
	raw, _ := m.Get("stopReason")
	if bytes.IndexByte(raw, '\\') >= 0 {
		sr := m.StopReason()
		return sr == transcript.StopError || sr == transcript.StopAborted
	}
	return bytes.Equal(raw, rawError) || bytes.Equal(raw, rawAborted)
}

// roleOf classifies a message by its role without decoding the string in
// the common case (a role written without escapes); it agrees with Role().
func roleOf(m *transcript.Message) int {
	raw, ok := m.Get("role")
	if !ok {
		return roleOther
	}
	if bytes.IndexByte(raw, '\\') >= 0 {
		switch m.Role() {
		case transcript.RoleToolResult:
			return roleResult
		case transcript.RoleAssistant:
			return roleAssistant
		}
		return roleOther
	}
	switch {
	case bytes.Equal(raw, rawToolResult):
		return roleResult
	case bytes.Equal(raw, rawAssistant):
		return roleAssistant
	}
	return roleOther
}

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
	rawError   = []byte(`"` + transcript.StopError + `"`)
	rawAborted = []byte(`"` + transcript.StopAborted + `"`)
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

// roleOf classifies a message by its role. Role reads the number the
// tape keeps of it (or an edited message keeps): no input byte, where the
// role's raw bytes compared here were a cache miss per message.
func roleOf(m *transcript.Message) int {
	switch m.Role() {
	case transcript.RoleToolResult:
		return roleResult
	case transcript.RoleAssistant:
		return roleAssistant
	}
	return roleOther
}

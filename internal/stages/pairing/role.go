package pairing

import "github.com/hygiene-dev/hygiene/internal/transcript"

// The roles the pairing rules tell apart.
const (
	roleOther = iota
	roleResult
	roleAssistant
)

// failedTurn reports whether an assistant stopped with "error" or
// "aborted". The stop reason is the number the tape keeps of it when it
// is a common one: no input byte is read.
func failedTurn(m *transcript.Message) bool {
	sr := m.StopReason()
	return sr == transcript.StopError || sr == transcript.StopAborted
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

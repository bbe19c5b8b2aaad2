package toolcalls

import (
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// resultIDPriority is the order in which the id rule picks a tool result's
// raw id among its non-blank id members (spec §3.6, newer build).
var resultIDPriority = []string{"call_id", "callId", "tool_call_id", "tool_use_id", "toolCallId", "toolUseId"}

// pickResultID returns the trimmed id the id rule resolves for a result: the
// first non-blank member in resultIDPriority order.
func pickResultID(m *transcript.Message) (string, bool) {
	for _, k := range resultIDPriority {
		if s, ok := m.String(k); ok && transcript.TrimID(s) != "" {
			return transcript.TrimID(s), true
		}
	}
	return "", false
}

// writeResultID writes id into every non-blank id member of the result that
// differs from it, and into toolCallId when that member is not one of them
// (spec §3.6: resolve once, write everywhere, add toolCallId). It reports
// whether the result changed.
func writeResultID(m *transcript.Message, id string) bool {
	changed := false
	wroteCallID := false
	for _, k := range resultIDPriority {
		s, ok := m.String(k)
		if !ok || transcript.TrimID(s) == "" {
			continue
		}
		if k == "toolCallId" {
			wroteCallID = true
		}
		if s != id {
			m.SetString(k, id)
			changed = true
		}
	}
	if !wroteCallID {
		m.SetString("toolCallId", id)
		changed = true
	}
	return changed
}

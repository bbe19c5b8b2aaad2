package toolcalls

import (
	"slices"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// resultIDPriority is the order in which the id rule picks a tool result's
// raw id among its non-blank id members (spec §3.6, newer build).
var resultIDPriority = [...]string{"call_id", "callId", "tool_call_id", "tool_use_id", "toolCallId", "toolUseId"}

// rawIDOrder is transcript.ResultIDFields, pairing's order for a result's
// id as written, as indexes into resultIDPriority.
var rawIDOrder = func() (order [len(resultIDPriority)]int) {
	for i, field := range transcript.ResultIDFields {
		order[i] = slices.Index(resultIDPriority[:], field)
	}
	return order
}()

// callIDAt is toolCallId's index in resultIDPriority.
var callIDAt = slices.Index(resultIDPriority[:], "toolCallId")

// resultIDs is what the id rule reads of a tool result's id members, each
// member read once.
type resultIDs struct {
	k   string // the trimmed id the rule resolves: the first non-blank member in resultIDPriority order
	raw string // the id as written that pairing reads (Message.RawResultID)
	// callIDOnly: toolCallId is the result's only non-blank id member, so
	// writing raw back (writeResultID) would change nothing.
	callIDOnly bool
}

// readResultIDs returns a result's ids, and false when it has no non-blank
// id member.
func readResultIDs(m *transcript.Message) (resultIDs, bool) {
	var values [len(resultIDPriority)]string
	first, n := -1, 0
	for i, field := range resultIDPriority {
		if s, ok := m.String(field); ok && transcript.TrimID(s) != "" {
			values[i], n = s, n+1
			if first < 0 {
				first = i
			}
		}
	}
	if first < 0 {
		return resultIDs{}, false
	}
	ids := resultIDs{k: transcript.TrimID(values[first]), callIDOnly: n == 1 && first == callIDAt}
	for _, i := range rawIDOrder {
		if values[i] != "" {
			ids.raw = values[i]
			break
		}
	}
	return ids, true
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

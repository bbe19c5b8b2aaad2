package pairing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// ResponsesIDsName is the report key and metric label of ResponsesIDs.
const ResponsesIDsName = "responses_ids"

// maxResponsesIDLen is the longest call_id (and item id) the OpenAI
// Responses API accepts.
const maxResponsesIDLen = 64

// ResponsesIDs normalises tool-call ids for the OpenAI Responses family
// (spec §3.8.3 "normalizeOpenAIResponsesToolCallIds", §4 step 10). OpenClaw
// stores a Responses call as "call_id|item_id"; the transport sends the part
// before the first "|" as call_id and the part after it as the function_call
// item id. The API rejects a call_id over 64 characters, an item id that
// does not start with "fc", and a call_id or item id used twice in one input
// (ids repeated across turns, as some providers emit them, are rejected).
//
// Algorithm, over the calls in transcript order (ids trimmed first):
//   - The call part is kept when it is 1 to 64 characters of [A-Za-z0-9_-]
//     and no earlier call kept the same call part. Every other call gets
//     "call_" followed by the first 24 hex digits of SHA-256 over the
//     trimmed id, the number of earlier calls with the same trimmed id, and
//     a salt that starts at 0 and grows only if the result is already taken
//     by a kept or earlier generated call part. The new id is thus a
//     function of the call's own id and occurrence, stable as the history
//     grows, and no two calls share a call part.
//   - The item part is kept when it starts with "fc_", is at most 64
//     characters of [A-Za-z0-9_-], and no earlier call kept it; otherwise it
//     is dropped (the item id is optional, and dropping it is what the fc_
//     downgrade does for an unpaired call). For a GitHub Copilot target its
//     own item ids (contract.CopilotItemID: base64, about 410 characters)
//     are kept too: Copilot checks them against the reasoning it encrypted
//     and takes them back as they were given.
//
// Calls and results are rewritten together: the results in the run of
// toolResult messages right after a turn are matched to its calls as the
// pairing repair matches them (trimmed id, first unanswered call first), and
// every id member naming the call gets the new id. Pairing runs before this
// stage, so every result sits in such a run. A transcript whose ids are
// already valid and distinct is left untouched. Counts: calls, results,
// items_dropped.
func ResponsesIDs() stage.Stage {
	return stage.Stage{Name: ResponsesIDsName, On: responsesOn, Needs: transcript.FactToolCall | transcript.FactToolResult, Apply: applyResponsesIDs}
}

// idSite is one tool call and what its id becomes.
type idSite struct {
	block *transcript.Block
	raw   string // the id as written
	key   string // trimmed
	call  string // part before the first "|"
	item  string // part after it, when hasItem
	keep  bool   // the call part stays
	// newID is the id after normalisation.
	newID   string
	hasItem bool
}

// turnSites is the range of sites of one assistant message.
type turnSites struct {
	msg        int
	site0, end int
}

func applyResponsesIDs(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	if !responsesOn(env) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var sites []idSite
	var turns []turnSites
	taken := map[string]struct{}{} // call parts in use
	for i, m := range t.Messages {
		if m.Role() != transcript.RoleAssistant {
			continue
		}
		calls := m.ToolCalls()
		if len(calls) == 0 {
			continue
		}
		turn := turnSites{msg: i, site0: len(sites)}
		for _, b := range calls {
			raw, _ := b.CallID()
			s := idSite{block: b, raw: raw, key: transcript.TrimID(raw)}
			s.call, s.item, s.hasItem = strings.Cut(s.key, "|")
			if _, dup := taken[s.call]; !dup && validIDPart(s.call) {
				s.keep = true
				taken[s.call] = struct{}{}
			}
			sites = append(sites, s)
		}
		turn.end = len(sites)
		turns = append(turns, turn)
	}
	itemsDropped := 0
	copilot := env.Policy.Provider == contract.CopilotProvider
	usedItems := map[string]struct{}{}
	seen := map[string]int{} // occurrences of each trimmed id so far
	for i := range sites {
		s := &sites[i]
		call := s.call
		if !s.keep {
			call = freshCallID(s.key, seen[s.key], taken)
		}
		seen[s.key]++
		s.newID = call
		if s.hasItem {
			if _, dup := usedItems[s.item]; !dup && (validItemPart(s.item) || copilot && contract.CopilotItemID(s.item)) {
				usedItems[s.item] = struct{}{}
				s.newID = call + "|" + s.item
			} else {
				itemsDropped++
			}
		}
	}
	calls, results := 0, 0
	for _, turn := range turns {
		ts := sites[turn.site0:turn.end]
		rewritten := false
		for i := range ts {
			if ts[i].newID != ts[i].raw {
				ts[i].block.SetString("id", ts[i].newID)
				calls++
				rewritten = true
			}
		}
		if rewritten {
			results += rewriteTurnResults(t.Messages[turn.msg+1:], ts)
		}
	}
	env.Report.Add(ResponsesIDsName, "calls", calls)
	env.Report.Add(ResponsesIDsName, "results", results)
	env.Report.Add(ResponsesIDsName, "items_dropped", itemsDropped)
	return nil
}

// rewriteTurnResults gives the results at the start of after (up to the
// first other message) the new ids of the calls they answer, and returns
// how many it changed.
func rewriteTurnResults(after []*transcript.Message, ts []idSite) int {
	next := map[string][]int{} // trimmed id -> the turn's sites not yet answered
	for i := range ts {
		next[ts[i].key] = append(next[ts[i].key], i)
	}
	n := 0
	for _, m := range after {
		if m.Role() != transcript.RoleToolResult {
			break
		}
		key, _ := m.ResultID()
		q := next[key]
		if len(q) == 0 {
			continue
		}
		s := &ts[q[0]]
		next[key] = q[1:]
		if s.newID == s.raw {
			continue
		}
		changed, named := false, false
		for _, k := range transcript.ResultIDFields {
			if v, ok := m.String(k); ok && transcript.TrimID(v) == key {
				named = true
				if v != s.newID {
					m.SetString(k, s.newID)
					changed = true
				}
			}
		}
		if !named {
			m.SetString("toolCallId", s.newID) // an id-less result answering a blank id
			changed = true
		}
		if changed {
			n++
		}
	}
	return n
}

// freshCallID returns the first free "call_<24 hex>" for the occurrence-th
// call with trimmed id key, and marks it taken.
func freshCallID(key string, occurrence int, taken map[string]struct{}) string {
	buf := make([]byte, 0, len(key)+24)
	for salt := 0; ; salt++ {
		buf = append(buf[:0], key...)
		buf = append(buf, 0)
		buf = strconv.AppendInt(buf, int64(occurrence), 10)
		buf = append(buf, 0)
		buf = strconv.AppendInt(buf, int64(salt), 10)
		sum := sha256.Sum256(buf)
		id := "call_" + hex.EncodeToString(sum[:12])
		if _, dup := taken[id]; !dup {
			taken[id] = struct{}{}
			return id
		}
	}
}

// validIDPart reports whether s is 1 to 64 characters of [A-Za-z0-9_-].
func validIDPart(s string) bool {
	if s == "" || len(s) > maxResponsesIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// validItemPart reports whether s is a function_call item id the API
// accepts: "fc_" then [A-Za-z0-9_-], at most 64 characters in all.
func validItemPart(s string) bool {
	return strings.HasPrefix(s, "fc_") && validIDPart(s)
}

package audit

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// call is one tool-call block of a message list, as the audit sees it.
type call struct {
	msg, block int    // where it is
	turn       int    // index among the list's assistant messages
	id         string // the id member as written ("" when absent or not a string)
	name       string // the name, trimmed
	rawName    string // the name as written
	args       string // the arguments in canonical form (sorted keys); "" when they are not an object
	complete   bool   // input or arguments is a JSON object and no unfinished partialJson is left (or a result answers it)
	cutPartial bool   // a partialJson that is not a whole object is left beside it
	stop       string // the turn's stopReason
	dupInTurn  bool   // an earlier call of the same turn has the same id
	// signedBy is who can verify the turn's thinking signature
	// (policy.Signer); "" when it carries none.
	signedBy string
}

// key is what matches a call across the repair when its id was rewritten.
func (c call) key() string { return c.name + "\x00" + c.args }

// result is one tool-result message of a message list.
type result struct {
	msg     int
	id      string // the first non-blank id member, as written
	trimmed string // the same, trimmed as pairing trims it
	name    string // toolName
	content string // the content member's raw JSON, for the fallback match
	answers int    // index of the call it answers in the same list, -1 for none
}

// inventory is every call and result of a message list.
type inventory struct {
	calls   []call
	results []result
}

// inventoryOf reads the calls and results of msgs. A result answers the
// nearest call before it whose id equals its id as written, else its
// trimmed id; it answers none when no call before it has that id.
func inventoryOf(msgs []*transcript.Message) inventory {
	var inv inventory
	lastByID := map[string]int{} // id -> index of the latest call with it
	turn := -1
	for i, m := range msgs {
		switch m.Role() {
		case transcript.RoleAssistant:
			turn++
			blocks, ok := m.Blocks()
			if !ok {
				continue
			}
			stop := m.StopReason()
			signedBy := ""
			if slices.ContainsFunc(blocks, signedThinking) {
				provider, _ := m.String("provider")
				model, _ := m.String("model")
				signedBy = policy.Signer(provider, model)
			}
			seen := map[string]bool{}
			for j, b := range blocks {
				if !b.IsAnyToolCall() {
					continue
				}
				c := readCall(b)
				c.msg, c.block, c.turn, c.stop, c.signedBy = i, j, turn, stop, signedBy
				if c.id != "" {
					c.dupInTurn = seen[c.id]
					seen[c.id] = true
					lastByID[c.id] = len(inv.calls)
				}
				inv.calls = append(inv.calls, c)
			}
		case transcript.RoleToolResult, transcript.RoleTool:
			r := result{msg: i, id: m.RawResultID(), answers: -1}
			r.trimmed, _ = m.ResultID()
			r.name, _ = m.String("toolName")
			if raw, ok := m.Get("content"); ok {
				r.content = string(raw)
			}
			if k, ok := lastByID[r.id]; ok && r.id != "" {
				r.answers = k
			} else if k, ok := lastByID[r.trimmed]; ok && r.trimmed != "" {
				r.answers = k
			}
			inv.results = append(inv.results, r)
		}
	}
	for _, r := range inv.results {
		// a call whose tool ran is complete, as the chain's §3.5 judges it
		// (toolcalls.completeArguments): its arguments are what ran
		if k := r.answers; k >= 0 && inv.calls[k].cutPartial && inv.calls[k].args != "" {
			switch inv.calls[k].stop {
			case transcript.StopError, transcript.StopAborted:
			default:
				inv.calls[k].complete = true
			}
		}
	}
	return inv
}

// readCall reads one tool-call block: its id, name and arguments (input
// before arguments, as spec §3.5 reads them).
func readCall(b *transcript.Block) call {
	var c call
	c.id, _ = b.String("id")
	c.rawName, _ = b.String("name")
	c.name = strings.TrimSpace(c.rawName)
	payload, ok := b.Get("input")
	if !ok || isNull(payload) {
		payload, ok = b.Get("arguments")
	}
	if ok && !isNull(payload) {
		c.args, ok = canonicalObject(payload)
	}
	c.complete = ok && c.args != ""
	if partial, isString := b.String("partialJson"); isString && strings.TrimSpace(partial) != "" {
		// A partialJson that is not a whole object is a call cut off mid-stream:
		// its arguments never finished, whatever the arguments member says,
		// unless a result answers it (inventoryOf). One that is (pi-ai leaves
		// it on finished calls) changes nothing.
		if _, whole := canonicalObject([]byte(partial)); !whole {
			c.complete, c.cutPartial = false, true
		}
	}
	return c
}

// signedThinking reports whether b is a thinking block with a replayable
// signature (spec §3.4: a non-blank signature, thinkingSignature or
// thought_signature; for redacted_thinking, data too).
func signedThinking(b *transcript.Block) bool {
	if !b.IsThinking() {
		return false
	}
	for _, k := range []string{"signature", "thinkingSignature", "thought_signature", "data"} {
		if k == "data" && b.Type() != transcript.BlockRedactedThinking {
			continue
		}
		if s, ok := b.String(k); ok && !transcript.IsBlank(s) {
			return true
		}
	}
	return false
}

func isNull(raw []byte) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// canonicalObject returns raw re-encoded with sorted keys when it is a JSON
// object; ok is false otherwise.
func canonicalObject(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v map[string]any
	if dec.Decode(&v) != nil || dec.More() {
		return "", false
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(out), true
}

// specName is the tool-name syntax spec §3.5 enforces on every target
// (sanitizeToolCallInputs, always on); at most 64 characters after trimming.
var specName = regexp.MustCompile(`^[A-Za-z0-9_:.-]+$`)

// validName reports whether the trimmed name passes spec §3.5 and the
// target's contract.
func validName(name string, names contract.IDLimits) bool {
	return name != "" && len(name) <= 64 && specName.MatchString(name) && names.Valid(name)
}

package toolcalls

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// inputsCheck reads a history in order, a message at a time (add), and
// tells (kept) whether the tool-call input validation (ToolCallInputs)
// would leave it as it is: every entry is an object, no assistant is a
// turn whose thinking the target verifies (frozenTurn: the rule's own
// path for signed turns), and every call of any spelling is one fixCall
// keeps as written (callKept). The tool-call id proof adds each message in
// its own read of every call, and leaves what the check found for the
// validation to take (stage.Env.InputsKept).
type inputsCheck struct {
	policy policy.Policy
	allow  allowList
	broken bool // an entry the validation may change
}

// newInputsCheck is the check of the validation under policy p and the
// job's allow-list allowed.
func newInputsCheck(p policy.Policy, allowed []string) *inputsCheck {
	return &inputsCheck{policy: p, allow: newAllowList(allowed, p.Contract.ToolNames)}
}

// add reads the next message of the history.
func (c *inputsCheck) add(m *transcript.Message) {
	if c.broken {
		return
	}
	if !m.IsObject() {
		c.broken = true // the validation removes it
		return
	}
	if m.Role() != transcript.RoleAssistant {
		return
	}
	blocks, ok := m.Blocks()
	if !ok {
		return
	}
	if frozenTurn(c.policy, m, blocks) {
		c.broken = true
		return
	}
	for _, b := range blocks {
		if b.IsAnyToolCall() && !c.callKept(b) {
			c.broken = true
			return
		}
	}
}

// kept reports whether every message added so far is one the validation
// leaves as it is.
func (c *inputsCheck) kept() bool { return !c.broken }

// callKept reports whether fixCall keeps call b as written: it has input
// and a non-blank id, a valid name that needs no trimming and that the
// allow-list takes, and no partialJson to judge or remove.
func (c *inputsCheck) callKept(b *transcript.Block) bool {
	if !hasInput(b) || !hasAnyCallID(b) || hasPartialJSON(b) {
		return false
	}
	name, ok := callName(b)
	return ok && strings.TrimSpace(name) == name && validToolName(name) && c.allow.allows(name)
}

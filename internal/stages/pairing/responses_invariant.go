package pairing

import (
	"context"
	"strconv"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// ResponsesInvariantName is the report key and metric label of ResponsesInvariant.
const ResponsesInvariantName = "responses_invariant"

// ResponsesInvariant is spec §3.15 (§4 step 16, Responses family): the
// pairing repair runs again with the text "aborted" (drop policy), then a
// checker asserts that every call is answered at once. After an assistant
// with calls only toolResults may follow until each call has its result,
// and every toolResult must answer a pending call of the turn before it.
// The repair makes a violation impossible, so one is a bug: the stage
// returns a *ReplayError and the job fails rather than send a replay the
// API would reject. Repair counts are reported under this stage's name.
func ResponsesInvariant() stage.Stage {
	return stage.Stage{Name: ResponsesInvariantName, On: responsesOn, Adds: syntheticResult, Apply: applyResponsesInvariant}
}

func applyResponsesInvariant(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	if !responsesOn(env) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	runRepair(t, env, ResponsesInvariantName, responsesMissingToolResultText)
	return checkResponsesReplay(t.Messages)
}

// Violation kinds of ReplayError.
const (
	DanglingToolCall = "dangling_tool_call" // a call not answered before another message
	OrphanToolResult = "orphan_tool_result" // a result that answers no pending call
)

// ReplayError is a violation of the OpenAI Responses replay invariant
// (spec §3.15).
type ReplayError struct {
	Kind       string // DanglingToolCall or OrphanToolResult
	ToolCallID string // the call or result id; "" when the result has none
	// Index is the message index: the assistant whose call is unanswered,
	// or the result that answers nothing.
	Index int
}

// Error returns the spec's sentence: "invalid_replay_transcript: OpenAI
// Responses replay contains <kind>[ toolCallId=<id>] at message index <i>".
func (e *ReplayError) Error() string {
	var b strings.Builder
	b.WriteString("invalid_replay_transcript: OpenAI Responses replay contains ")
	b.WriteString(e.Kind)
	if e.ToolCallID != "" {
		b.WriteString(" toolCallId=")
		b.WriteString(e.ToolCallID)
	}
	b.WriteString(" at message index ")
	b.WriteString(strconv.Itoa(e.Index))
	return b.String()
}

// checkResponsesReplay returns the first violation of the invariant, or
// nil. Ids are compared trimmed, as the pairing repair compares them; an
// id-less result answers a call whose id is only white space. A result may
// answer any pending call of its turn, in any order.
func checkResponsesReplay(msgs []*transcript.Message) error {
	var p pendingCalls
	for i, m := range msgs {
		if m.Role() == transcript.RoleToolResult {
			key, _ := m.ResultID()
			if !p.answer(key) {
				return &ReplayError{Kind: OrphanToolResult, ToolCallID: key, Index: i}
			}
			continue
		}
		if p.left > 0 {
			return &ReplayError{Kind: DanglingToolCall, ToolCallID: p.raw[p.head], Index: p.turn}
		}
		if m.Role() == transcript.RoleAssistant {
			if calls := m.ToolCalls(); len(calls) > 0 {
				p.open(i, calls)
			}
		}
	}
	if p.left > 0 {
		return &ReplayError{Kind: DanglingToolCall, ToolCallID: p.raw[p.head], Index: p.turn}
	}
	return nil
}

// pendingCalls are the calls of the open turn, answered in any order.
type pendingCalls struct {
	turn  int      // index of the turn
	keys  []string // trimmed ids, in call order
	raw   []string // ids as written
	done  []bool
	head  int              // first unanswered call
	left  int              // unanswered calls
	byKey map[string][]int // unanswered positions per id, for large turns
}

// open starts a new turn with the given calls.
func (p *pendingCalls) open(turn int, calls []*transcript.Block) {
	p.turn, p.head, p.left, p.byKey = turn, 0, len(calls), nil
	p.keys, p.raw, p.done = p.keys[:0], p.raw[:0], p.done[:0]
	for _, b := range calls {
		id, _ := b.CallID()
		p.keys = append(p.keys, transcript.TrimID(id))
		p.raw = append(p.raw, id)
		p.done = append(p.done, false)
	}
	if len(calls) > smallFrame {
		p.byKey = make(map[string][]int, len(calls))
		for i, k := range p.keys {
			p.byKey[k] = append(p.byKey[k], i)
		}
	}
}

// answer marks the first unanswered call with this id answered, and reports
// whether there was one.
func (p *pendingCalls) answer(key string) bool {
	if p.left == 0 {
		return false
	}
	j := -1
	if p.byKey != nil {
		if q := p.byKey[key]; len(q) > 0 {
			j, p.byKey[key] = q[0], q[1:]
		}
	} else {
		for i := p.head; i < len(p.keys); i++ {
			if !p.done[i] && p.keys[i] == key {
				j = i
				break
			}
		}
	}
	if j < 0 {
		return false
	}
	p.done[j] = true
	p.left--
	for p.head < len(p.done) && p.done[p.head] {
		p.head++
	}
	return true
}

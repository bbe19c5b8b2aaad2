package toolcalls

import (
	"context"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// inputsStage is the report key and metric label of ToolCallInputs.
const inputsStage = "tool_call_inputs"

// ctxCheckEvery is how many messages a rule walks between context checks.
const ctxCheckEvery = 4096

// ToolCallInputs returns the tool-call input validation rule (spec §3.5,
// newer build; always on).
//
// A tool call of any spelling (toolCall, toolUse, functionCall and the
// snake-case aliases) is dropped when it has neither input nor arguments,
// has no non-blank id in any of the id members, has an invalid name, has a
// name outside the job's allowed_tool_names (case-insensitive; an empty list
// means no list), or still carries a partialJson scratch buffer beside
// arguments that are not complete (see completeArguments: a finished call
// whose tool ran, its result in the transcript, is complete even when the
// leftover buffer does not parse; OpenClaw drops it, this rule keeps it on
// purpose); a call whose arguments are complete only loses its partialJson. A name with surrounding
// white space is trimmed. An assistant left with no blocks by these drops is
// removed, and so are null and other non-object entries.
//
// When the target verifies the turn's thinking signatures (see frozenTurn),
// an assistant with thinking and tool calls is never edited: it is kept
// byte-identical when it is replay-safe (see signedTurnSafe) and dropped
// whole otherwise. A turn whose thinking another provider wrote is checked
// call by call, as any other.
//
// The rule only drops calls. It never creates a tool result: pairing repair
// later removes the results of dropped calls as orphans.
func ToolCallInputs() stage.Stage {
	return stage.Stage{Name: inputsStage, Apply: applyToolCallInputs}
}

// inputsRun is the state of one pass of ToolCallInputs.
type inputsRun struct {
	msgs   []*transcript.Message
	allow  allowList
	policy policy.Policy
	// preserved holds the call ids of the signed turns kept so far (nil
	// for none: most jobs have none, and pay no map).
	preserved map[string]struct{}
	// earlier holds the trimmed call ids of the assistants in
	// msgs[:earlierTo] as they came to this pass, built only when a
	// displaced signed turn asks (earlierThan): most histories have none,
	// and pay for no set of every call id. dropped holds the trimmed ids of
	// the calls this pass dropped from assistants it kept, which their
	// blocks no longer show.
	earlier   map[string]struct{}
	earlierTo int
	dropped   []string
	// spanEnds holds the assistant that ends the span of each kept signed turn.
	spanEnds []*transcript.Message
	// results holds the index of the last tool result of each trimmed id,
	// built the first time a call's leftover partialJson does not parse
	// (see answered); at is the index of the message being validated.
	results map[string]int
	at      int
	report  *stage.Report
}

// applyToolCallInputs runs the rule; a run that counted no change edited
// nothing, and says so (env.NoEdit). Where the tool-call id proof found
// every call kept as written in its own read (stage.Env.InputsKept) and no
// rule edited the history since, the rule reads nothing.
func applyToolCallInputs(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	if _, ok := env.FoundUnedited(env.InputsKept); ok {
		env.NoEdit()
		return nil
	}
	before := env.Report.Stages.Total(inputsStage)
	if err := validateInputs(ctx, t, env); err != nil {
		return err
	}
	if env.Report.Stages.Total(inputsStage) == before {
		env.NoEdit()
	}
	return nil
}

// validateInputs runs passes of the rule until one leaves every signed
// turn's span as it was (see spanGrew).
func validateInputs(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	for {
		r := &inputsRun{
			msgs:   t.Messages,
			allow:  newAllowList(env.Settings.Request.AllowedToolNames, env.Policy.Contract.ToolNames),
			policy: env.Policy,
			report: env.Report,
		}
		out, err := r.pass(ctx)
		if err != nil || out == nil {
			return err
		}
		t.Messages = out
		if !r.spanGrew(out) {
			return nil
		}
	}
}

// pass validates every entry once and returns the kept entries, or nil when
// every entry stays.
func (r *inputsRun) pass(ctx context.Context) ([]*transcript.Message, error) {
	var out []*transcript.Message // nil until the first message is removed
	for i, m := range r.msgs {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		keep := r.message(i, m)
		if !keep && out == nil {
			out = make([]*transcript.Message, i, len(r.msgs))
			copy(out, r.msgs[:i])
		}
		if keep && out != nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// spanGrew reports whether an assistant that ended the span of a kept signed
// turn was removed. The turn's span then reaches further in the output, which
// can change its displacement check, so the rule runs again over its own
// output until that no longer happens (the rule is idempotent). This is rare:
// most passes remove no assistant that ends a signed turn's span.
func (r *inputsRun) spanGrew(out []*transcript.Message) bool {
	if len(r.spanEnds) == 0 {
		return false
	}
	kept := make(map[*transcript.Message]struct{}, len(out))
	for _, m := range out {
		kept[m] = struct{}{}
	}
	for _, end := range r.spanEnds {
		if _, ok := kept[end]; !ok {
			return true
		}
	}
	return false
}

// message validates one entry and reports whether it stays.
func (r *inputsRun) message(i int, m *transcript.Message) bool {
	if !m.IsObject() {
		r.report.Add(inputsStage, "non_objects_removed", 1)
		return false
	}
	if m.Role() != transcript.RoleAssistant {
		return true
	}
	r.at = i
	blocks, ok := m.Blocks()
	if !ok {
		return true
	}
	if frozenTurn(r.policy, m, blocks) {
		if r.signedTurnSafe(i, blocks) {
			for _, b := range blocks {
				if b.IsAnyToolCall() {
					r.preserved = addID(r.preserved, trimmedID(b))
				}
			}
			return true
		}
		r.report.Add(inputsStage, "signed_turns_dropped", 1)
		r.report.Add(inputsStage, "dropped_calls", countCalls(blocks))
		r.report.Add(inputsStage, "messages_removed", 1)
		return false
	}
	return r.mutable(m, blocks)
}

// mutable validates the calls of an ordinary assistant, dropping and
// trimming in place, and reports whether the message stays.
func (r *inputsRun) mutable(m *transcript.Message, blocks []*transcript.Block) bool {
	var kept []*transcript.Block // nil until the first block is dropped
	dropped := 0
	for j, b := range blocks {
		keep := true
		if b.IsAnyToolCall() {
			keep = r.fixCall(m, b)
		}
		if !keep {
			dropped++
			if id := trimmedID(b); id != "" {
				r.dropped = append(r.dropped, id)
			}
			if kept == nil {
				kept = append(make([]*transcript.Block, 0, len(blocks)), blocks[:j]...)
			}
			continue
		}
		if kept != nil {
			kept = append(kept, b)
		}
	}
	if dropped == 0 {
		return true
	}
	r.report.Add(inputsStage, "dropped_calls", dropped)
	if len(kept) == 0 {
		r.report.Add(inputsStage, "messages_removed", 1)
		return false
	}
	m.SetBlocks(kept)
	return true
}

// fixCall checks one call of a mutable assistant. It reports false when the
// call must be dropped; otherwise it trims the name and removes the
// partialJson of a finalised Responses call.
func (r *inputsRun) fixCall(m *transcript.Message, b *transcript.Block) bool {
	if !hasInput(b) || !hasAnyCallID(b) {
		return false
	}
	name, ok := callName(b)
	trimmed := strings.TrimSpace(name)
	if !ok || !validToolName(trimmed) || !r.allow.allows(trimmed) {
		return false
	}
	if hasPartialJSON(b) {
		if !completeArguments(m, b, r.answered) {
			return false
		}
		b.Delete("partialJson")
		r.report.Add(inputsStage, "partial_json_removed", 1)
	}
	if trimmed != name {
		b.SetString("name", trimmed)
		r.report.Add(inputsStage, "trimmed_names", 1)
	}
	return true
}

// answered reports whether a tool-result message after the call's
// assistant carries one of the call's ids (trimmed, as pairing matches
// them); a result before it answers an earlier call of the same id.
func (r *inputsRun) answered(b *transcript.Block) bool {
	if r.results == nil {
		r.results = map[string]int{}
		for i, m := range r.msgs {
			if role := m.Role(); role == transcript.RoleToolResult || role == transcript.RoleTool {
				if id, ok := m.ResultID(); ok {
					r.results[id] = i
				}
			}
		}
	}
	for _, k := range callIDFields {
		if s, ok := b.String(k); ok {
			if at, ok := r.results[transcript.TrimID(s)]; ok && at > r.at {
				return true
			}
		}
	}
	return false
}

// earlierThan returns the trimmed call ids of the assistants before
// msgs[i], as they came to this pass, for the displacement check of the
// signed turn at i. It adds the assistants since its last call, then the
// ids of the calls dropped so far: an assistant this pass kept has lost
// those from its blocks, and one it removed keeps its blocks as they were.
// (A call's id is never edited by this rule, and every drop so far was
// from an assistant before i.)
func (r *inputsRun) earlierThan(i int) map[string]struct{} {
	if r.earlier == nil {
		r.earlier = map[string]struct{}{}
	}
	for ; r.earlierTo < i; r.earlierTo++ {
		m := r.msgs[r.earlierTo]
		if !m.IsObject() || m.Role() != transcript.RoleAssistant {
			continue
		}
		blocks, _ := m.Blocks()
		for _, b := range blocks {
			if b.IsAnyToolCall() {
				if id := trimmedID(b); id != "" {
					r.earlier[id] = struct{}{}
				}
			}
		}
	}
	for _, id := range r.dropped {
		r.earlier[id] = struct{}{}
	}
	r.dropped = r.dropped[:0]
	return r.earlier
}

// countCalls counts the tool calls of any spelling among blocks.
func countCalls(blocks []*transcript.Block) int {
	n := 0
	for _, b := range blocks {
		if b.IsAnyToolCall() {
			n++
		}
	}
	return n
}

// frozenTurn reports whether an assistant is an immutable signed-thinking
// turn (spec §3.5): it has at least one thinking or redacted_thinking block
// and at least one tool call, and its thinking will be replayed to a
// provider that verifies its signatures (policy.VerifiesTurn, from the
// turn's own provider and api).
func frozenTurn(p policy.Policy, m *transcript.Message, blocks []*transcript.Block) bool {
	thinking, call := false, false
	for _, b := range blocks {
		thinking = thinking || b.IsThinking()
		call = call || b.IsAnyToolCall()
	}
	return thinking && call && p.VerifiesTurn(m)
}

// addID adds id to the set ids, made at the first id.
func addID(ids map[string]struct{}, id string) map[string]struct{} {
	if ids == nil {
		ids = map[string]struct{}{}
	}
	ids[id] = struct{}{}
	return ids
}

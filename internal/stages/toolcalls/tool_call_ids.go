package toolcalls

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Report keys and metric labels of the id rules.
const (
	idsStage      = "tool_call_ids"
	idsEarlyStage = "tool_call_ids_early"
)

// ToolCallIDs returns the tool-call id rule (spec §3.6, newer build; §4 step 11).
//
// When the policy sets SanitizeToolCallIDs and a ToolCallIDMode, it rewrites
// the "id" of every toolCall/toolUse/functionCall block with a non-empty id
// and the id members of every tool result, in one ordered pass: strict or
// strict9 sanitising, makeUnique, native toolu_ ids (first occurrence),
// native Kimi ids in strict mode, the OpenAI duplicate style, the newer
// result-id rule (pick call_id > callId > tool_call_id > tool_use_id >
// toolCallId > toolUseId, resolve once, write every differing member, add
// toolCallId), and replay-safe signed-thinking turns kept with their raw ids
// when the policy replays provider-owned thinking (preservedTurns).
//
// Choices beyond OpenClaw:
//   - every emitted id is one the target accepts (contract.IDLimits); an id
//     OpenClaw would keep (a native toolu_ or Kimi id, a call_ id, a signed
//     turn's id) is kept only when it is accepted;
//   - ids are matched the way pairing repair matches them (trimmed), and a
//     result always gets the id of the call pairing would give it by raw id
//     (see resolver), so rewriting ids never re-pairs a result;
//   - an orphan result never takes an id that a call of the history
//     carries, so that call keeps its id (OpenClaw can give a native toolu_
//     id to an orphan that comes first); an orphan whose id is already what
//     the mode produces, is free and is no call's id keeps it (OpenClaw
//     appends ":tool_result:n" again on every run), which makes the rule
//     idempotent;
//   - no clock: makeUnique's timestamp fallback is replaced by further hashes.
//
// When the policy does not sanitise ids but the target limits them (for
// example OpenAI Responses, 64 characters for the call_id part of a
// "call_id|item_id" pair, or a Chat Completions passthrough row, 40), only
// ids the target rejects are rewritten (fitLimits): the same trimmed id
// always gets the same new id, in calls and results alike, a Responses pair
// keeps its item part, and a new id never equals another id of the history.
//
// A history that needs no change is left untouched.
func ToolCallIDs() stage.Stage {
	return stage.Stage{Name: idsStage, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		p := env.Policy
		switch {
		case p.SanitizeToolCallIDs && p.ToolCallIDMode != policy.IDModeNone:
			return sanitizeIDs(ctx, t, env, idsStage)
		case p.IDLimits != (contract.IDLimits{}):
			return fitLimits(ctx, t, env)
		}
		return nil
	}}
}

// ToolCallIDsInImagePass returns the early run of the id rule that spec §4
// step 3 makes part of the image pass: the same algorithm, only when the
// policy sanitises ids, does not replay provider-owned thinking, and is not
// the OpenAI Responses family. Its output is a fixed point of ToolCallIDs,
// so the later step 11 run changes nothing it already did.
func ToolCallIDsInImagePass() stage.Stage {
	return stage.Stage{Name: idsEarlyStage, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		p := env.Policy
		if !p.SanitizeToolCallIDs || p.ToolCallIDMode == policy.IDModeNone || p.AllowProviderOwnedThinkingReplay() || p.IsResponsesAPI() {
			return nil
		}
		return sanitizeIDs(ctx, t, env, idsEarlyStage)
	}}
}

// sanitizeIDs is the sanitising pass shared by both runs.
func sanitizeIDs(ctx context.Context, t *transcript.Transcript, env *stage.Env, name string) error {
	r := newResolver(env.Policy)
	preserved := scanCalls(t, env, r, env.Policy.AllowProviderOwnedThinkingReplay())
	calls, results := 0, 0
	for i, m := range t.Messages {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !m.IsObject() {
			continue
		}
		switch m.Role() {
		case transcript.RoleAssistant:
			calls += rewriteCalls(r, m, preserved[i])
		case transcript.RoleToolResult:
			k, ok := pickResultID(m)
			if !ok {
				continue
			}
			if writeResultID(m, r.result(k, resultRef{raw: m.RawResultID(), real: !isSynthetic(m, env.Settings.MissingToolResultText)})) {
				results++
			}
		}
	}
	if r.err != nil {
		return r.err
	}
	env.Report.Add(name, "calls_rewritten", calls)
	env.Report.Add(name, "results_rewritten", results)
	return nil
}

// rewriteCalls resolves the calls of one assistant and returns how many ids
// changed. A preserved turn keeps every id.
func rewriteCalls(r *resolver, m *transcript.Message, preserved bool) int {
	blocks, _ := m.Blocks()
	changed, framed := 0, false
	for _, b := range blocks {
		if !b.IsToolCall() {
			continue
		}
		raw, ok := b.CallID()
		if !ok {
			continue
		}
		if !framed {
			r.startFrame()
			framed = true
		}
		if id := r.call(preserved); id != raw {
			b.SetString("id", id)
			changed++
		}
	}
	return changed
}

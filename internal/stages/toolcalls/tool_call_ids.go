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
	idsAgainStage = "tool_call_ids_again"
)

// idSites are what the id rules read: the ids of tool calls and tool
// results.
const idSites = transcript.FactToolCall | transcript.FactToolResult

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
// when the policy replays provider-owned thinking (resolver.preserve).
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
// A history that needs no change is left untouched. When the early run
// (ToolCallIDsInImagePass) ran in this job and no rule since edited the
// history (env.IDsSanitized still stands), its output is this run's: the
// pass is idempotent, so the rule takes that proof and reads nothing. A
// clean history then pays for one id pass, not two.
func ToolCallIDs() stage.Stage {
	return stage.Stage{Name: idsStage, Needs: idSites, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		p := env.Policy
		switch {
		case p.SanitizeToolCallIDs && p.ToolCallIDMode != policy.IDModeNone:
			if _, ok := env.FoundUnedited(env.IDsSanitized); ok {
				env.NoEdit()
				return nil
			}
			if err := sanitizeIDs(ctx, t, env, idsStage, sameRead{pairs: new(transcript.PairedCheck)}); err != nil {
				return err
			}
			env.IDsSanitized = env.Prove(0) // for ToolCallIDsAgain
			return nil
		case p.IDLimits != (contract.IDLimits{}):
			return fitLimits(ctx, t, env)
		}
		return nil
	}}
}

// ToolCallIDsAgain returns the id rule once more, after the rules that
// repair calls and results and the again pass of §3.4.3
// (turns.InvalidSignaturesAgain), for the policies that keep replay-safe
// signed turns' raw ids (the sanitising pass of a target that replays
// provider-owned thinking): whether a turn is a signed turn depends on its
// thinking, and that pass may drop the unsigned thinking of the latest turn
// after ToolCallIDs kept its raw ids. A second pass of the chain would then
// rewrite them; this run does it in the first (issue 16: one pass reaches
// the fixed point; a FuzzChain find of session 16).
//
// It runs only when a signed turn may have lost its thinking: the again
// pass's proof that none did (env.SignedTurnsKept), or ToolCallIDs' proof
// that no rule has edited the history since it ran (env.IDsSanitized), is
// taken instead, and most jobs read nothing here. Over a history that
// neither proof covers it is the same idempotent pass: the ids ToolCallIDs
// gave stay as they are, and a turn that is no longer signed gets the ids
// of a turn that never was.
func ToolCallIDsAgain() stage.Stage {
	return stage.Stage{Name: idsAgainStage, Needs: transcript.FactThinking, On: keepsSignedTurnIDs, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !keepsSignedTurnIDs(env) {
			return nil
		}
		if _, ok := env.FoundUnedited(env.SignedTurnsKept); ok {
			env.NoEdit()
			return nil
		}
		if _, ok := env.FoundUnedited(env.IDsSanitized); ok {
			env.NoEdit()
			return nil
		}
		return sanitizeIDs(ctx, t, env, idsAgainStage, sameRead{})
	}}
}

// keepsSignedTurnIDs is ToolCallIDsAgain's guard: the policy sanitises ids
// and replays provider-owned thinking, so the id pass keeps the raw ids of
// replay-safe signed turns (resolver.preserve).
func keepsSignedTurnIDs(env *stage.Env) bool {
	p := env.Policy
	return p.SanitizeToolCallIDs && p.ToolCallIDMode != policy.IDModeNone && p.AllowProviderOwnedThinkingReplay()
}

// ToolCallIDsInImagePass returns the early run of the id rule that spec §4
// step 3 makes part of the image pass: the same algorithm, only when the
// policy sanitises ids, does not replay provider-owned thinking, and is not
// the OpenAI Responses family. Its output is a fixed point of ToolCallIDs,
// so the later step 11 run changes nothing it already did; it leaves the
// proof of that in env.IDsSanitized, for the later run to take while no
// rule edits the history.
func ToolCallIDsInImagePass() stage.Stage {
	return stage.Stage{Name: idsEarlyStage, Needs: idSites, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		p := env.Policy
		if !p.SanitizeToolCallIDs || p.ToolCallIDMode == policy.IDModeNone || p.AllowProviderOwnedThinkingReplay() || p.IsResponsesAPI() {
			return nil
		}
		also := sameRead{pairs: new(transcript.PairedCheck), inputs: newInputsCheck(p, env.Settings.Request.AllowedToolNames)}
		if err := sanitizeIDs(ctx, t, env, idsEarlyStage, also); err != nil {
			return err
		}
		env.IDsSanitized = env.Prove(0)
		return nil
	}}
}

// sanitizeIDs is the sanitising pass shared by both runs, in three phases
// so that a large history uses the job's Fanout (stage.ChunkResults: the
// same threshold as every chunked rule):
//
//  1. collect, per chunk in parallel: every call's and result's id, its
//     trimmed form, the id makeUnique tries first and whether the target
//     accepts them (collector); then the ids are interned, one shard of the
//     key table per chunk, in parallel (keyTable.intern). A history in
//     one chunk interns each id as it collects it (collector.keys), while
//     the id's bytes are in cache: a pass that interned them after reading
//     every message paid a cache miss for each id's bytes and for each
//     result's look-up of its call's id;
//  2. resolve, once, on the job's goroutine and in history order, as the
//     sequential pass always has: the replay-safe turns first (preserve),
//     then every call and result (resolver), which reads and writes only
//     the collected sites, never a message;
//  3. rewrite, per chunk in parallel: each chunk writes the ids of its own
//     messages and counts them; the counts are summed, so the report is the
//     sequential run's.
//
// A history in one chunk runs the same phases on the job's goroutine. When
// no accepted id can be built, the pass returns that error and writes
// nothing. Before the phases, one read of the ids (keepsEveryID) proves
// most clean histories a fixed point: the pass then collects nothing, and
// leaves what the same read found for the checks of also (sameRead), each
// given by a caller that a rule taking it follows.
func sanitizeIDs(ctx context.Context, t *transcript.Transcript, env *stage.Env, name string, also sameRead) error {
	col := newCollector(env, env.Policy.AllowProviderOwnedThinkingReplay())
	if kept, err := col.keepsEveryID(ctx, t.Messages, &also); kept || err != nil {
		if kept {
			also.prove(env)
			env.NoEdit()
		}
		return err
	}
	return col.rewriteIDs(ctx, t, env, name)
}

// rewriteIDs is sanitizeIDs' three phases, with the collector c.
func (c *collector) rewriteIDs(ctx context.Context, t *transcript.Transcript, env *stage.Env, name string) error {
	if env.OneChunk(len(t.Messages)) {
		c.keys = &keyShard{} // filled by collect, which sizes it (newKeyShard)
	}
	chunks := stage.ChunkResults(env, len(t.Messages), func(lo, hi int) idChunk {
		return c.collect(ctx, t.Messages, lo, hi)
	})
	run := func(k int, f func(int)) { runChunks(env, k, f) }
	calls := 0
	for i := range chunks {
		if chunks[i].err != nil {
			return chunks[i].err
		}
		calls += len(chunks[i].calls)
	}
	keys := newKeyTable(len(chunks))
	var size int32
	if c.keys != nil {
		size = keys.adopt(c.keys)
	} else {
		size = keys.intern(chunks, run)
	}
	r := newResolver(env.Policy, keys, size, calls)
	defer releasePass(chunks, keys, r)
	for i := range chunks {
		for _, c := range chunks[i].calls {
			r.states[c.key].isCall = true
		}
	}
	r.preserve(chunks)
	for i := range chunks {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.resolve(&chunks[i])
	}
	if r.err != nil {
		return r.err
	}
	// The resolver gave each call one occurrence, in call order: chunk i's
	// are the window from the calls of the chunks before it.
	first := make([]int, len(chunks)+1)
	for i := range chunks {
		first[i+1] = first[i] + len(chunks[i].calls)
	}
	counts := make([]idCounts, len(chunks))
	runChunks(env, len(chunks), func(i int) { counts[i] = chunks[i].rewrite(r.occs[first[i]:first[i+1]]) })
	total := sumCounts(counts)
	env.Report.Add(name, "calls_rewritten", total.calls)
	env.Report.Add(name, "results_rewritten", total.results)
	if total == (idCounts{}) {
		env.NoEdit()
	}
	return nil
}

// resolve gives every call and result of ch its id, in history order: a
// call's is its occurrence's (the next of r.occs), a result's is kept in its
// site. A preserved call keeps its id.
func (r *resolver) resolve(ch *idChunk) {
	calls, results := ch.calls, ch.results
	for len(calls) > 0 || len(results) > 0 {
		if len(results) == 0 || len(calls) > 0 && calls[0].at < results[0].at {
			c := &calls[0]
			if c.opens {
				r.startFrame()
			}
			r.call(c)
			calls = calls[1:]
			continue
		}
		rs := &results[0]
		rs.id = r.result(rs.k, rs.key, rs.ref)
		results = results[1:]
	}
}

// idCounts is how many call ids and result ids a rewrite changed.
type idCounts struct{ calls, results int }

// sumCounts adds up the chunks' counts.
func sumCounts(counts []idCounts) idCounts {
	var total idCounts
	for _, c := range counts {
		total.calls += c.calls
		total.results += c.results
	}
	return total
}

// runChunks calls f(0) … f(k-1): on env.Fanout when there is more than one
// chunk (the k stage.ChunkResults made), else on the job's goroutine.
func runChunks(env *stage.Env, k int, f func(int)) {
	if k == 1 {
		f(0)
		return
	}
	env.Fanout.Run(k, f)
}

// rewrite writes the resolved ids into the messages of ch and counts the
// changes; occs are the occurrences of its calls, one per call in order.
func (ch *idChunk) rewrite(occs []occurrence) idCounts {
	var n idCounts
	for i := range ch.calls {
		if c, id := &ch.calls[i], occs[i].id; id != c.raw {
			c.block.SetString("id", id)
			n.calls++
		}
	}
	for i := range ch.results {
		rs := &ch.results[i]
		if rs.ref.callIDOnly && rs.id == rs.ref.raw {
			continue // its toolCallId is id already, and it has no other id member to write
		}
		if writeResultID(rs.msg, rs.id) {
			n.results++
		}
	}
	return n
}

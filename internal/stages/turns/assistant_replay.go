package turns

import (
	"bytes"
	"context"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// AssistantReplay is spec §3.2 (normalizeAssistantReplayContent, always on),
// which also carries Bedrock's empty-turn handling (§3.16):
//   - user turns: a blank string content drops the message; blank text
//     blocks are removed from array content, and a message whose array this
//     empties is dropped (an array that was already empty is left to the
//     blank-block rule's placeholder);
//   - transcript-only assistant rows are dropped. Choice: the test is the one
//     OpenClaw's shared predicate applies, provider "openclaw" and model
//     "delivery-mirror" or "gateway-injected" (both trimmed). Newer builds
//     also honour an openclawDeliveryMirror marker whose valid shape is not
//     documented, so it is not used: nothing else is dropped;
//   - assistant string content: blank or the silent reply NO_REPLY drops the
//     message, anything else becomes one text block. OpenClaw's display
//     sanitiser is not specified, so text is compared trimmed and never
//     rewritten;
//   - an object content becomes a one-element array; null, a primitive or a
//     missing content becomes [];
//   - array content loses text blocks that are blank or NO_REPLY; a message
//     this empties is dropped, and so is one left with reasoning only after
//     its NO_REPLY text was removed;
//   - a "length" turn with reasoning and nothing but blank text is dropped;
//   - an empty content with stopReason "error", or a zero-usage empty
//     "stop" turn, gets the exact sentinel text; other empty turns are kept;
//   - trailing sentinel or empty failed turns are popped from the end.
//
// Zero usage means no usage object, or usage whose token counts (input,
// output, cacheRead, cacheWrite, totalTokens) are all 0 or not numbers: what
// the usage rule (§3.14) normalises to zero. Choice: a compaction-stale turn
// (one whose usage §3.14 zeroes: before the last compactionSummary, or
// timestamped at or before the newest compaction) is never zero-usage, since
// its usage will be zero whatever the turn was; otherwise a second pass over
// the output would see a failed turn where the first saw a real one.
func AssistantReplay() stage.Stage { return assistantReplay("assistant_replay", false) }

// AssistantReplayAgain judges again, by the rules of AssistantReplay, every
// message that a rule after it changed, so that one pass of the chain
// reaches its fixed point: tool-call input validation (§3.5) runs after
// §3.2, and an assistant it leaves with reasoning only (a "length" turn
// whose one call had an empty id, say) would otherwise be dropped only by a
// second pass (issue 16). Only assistants are judged again (the rules in
// between edit no other role's emptiness); one no rule edited was judged
// already and is skipped, and an edited one that §3.2 already normalised is
// left as it is, because the judgement is idempotent. Choice: "edited" is
// Message.MayDiffer, not Changed. Changed encodes the content of every
// assistant whose blocks a rule touched to compare it with its input bytes
// (on a damaged history, every assistant whose call ids were rewritten);
// MayDiffer encodes nothing, and the few it adds, edited back to their
// input bytes, are judged again to the same verdict.
func AssistantReplayAgain() stage.Stage { return assistantReplay("assistant_replay_again", true) }

// assistantReplay is §3.2 over every message, or over the changed ones only.
func assistantReplay(name string, changedOnly bool) stage.Stage {
	return stage.Stage{Name: name, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		var out []*transcript.Message // nil until the first drop
		dropped, normalised, sentinels := 0, 0, 0
		var comp *compaction // found on first use: most runs of the again pass judge nothing
		var found compaction // where comp points once found (declared here, it stays on the stack)
		for i, m := range t.Messages {
			if changedOnly && (m.Role() != transcript.RoleAssistant || !m.MayDiffer()) {
				if out != nil {
					out = append(out, m)
				}
				continue
			}
			if comp == nil {
				found = compactionOf(env, t.Messages)
				comp = &found
			}
			keep, changed, sentinel := replayMessage(m, comp.stale(m, i))
			if changed {
				normalised++
			}
			if sentinel {
				sentinels++
			}
			if !keep {
				dropped++
				if out == nil {
					out = append(make([]*transcript.Message, 0, len(t.Messages)), t.Messages[:i]...)
				}
				continue
			}
			if out != nil {
				out = append(out, m)
			}
		}
		if out != nil {
			t.Messages = out
		}
		trimmed := trimTrailingFailures(t, env)
		env.Report.Add(name, "dropped", dropped)
		env.Report.Add(name, "normalised", normalised)
		env.Report.Add(name, "sentinel", sentinels)
		env.Report.Add(name, "trailing_trimmed", trimmed)
		if dropped+normalised+sentinels+trimmed == 0 {
			env.NoEdit()
		}
		return nil
	}}
}

// replayMessage applies §3.2 to one message: keep is false when the message
// leaves the replay copy, changed when its content was rewritten, sentinel
// when it received the stream-error text.
func replayMessage(m *transcript.Message, stale bool) (keep, changed, sentinel bool) {
	switch m.Role() {
	case transcript.RoleUser:
		return replayUser(m)
	case transcript.RoleAssistant:
		return replayAssistant(m, stale)
	}
	return true, false, false
}

func replayUser(m *transcript.Message) (keep, changed, sentinel bool) {
	if s, ok := m.ContentString(); ok {
		return !transcript.IsBlank(s), false, false
	}
	blocks, ok := m.Blocks()
	if !ok {
		return true, false, false
	}
	kept, removed := withoutBlankText(blocks)
	if removed == 0 {
		return true, false, false
	}
	if len(kept) == 0 {
		return false, false, false
	}
	m.SetBlocks(kept)
	return true, true, false
}

func replayAssistant(m *transcript.Message, stale bool) (keep, changed, sentinel bool) {
	if transcript.IsStandIn(m) {
		return false, false, false
	}
	if s, ok := m.ContentString(); ok {
		if isSilentOrBlank(s) {
			return false, false, false
		}
		m.SetBlocks([]*transcript.Block{transcript.TextBlock(s)})
		changed = true
	} else if !contentIsArray(m) {
		if raw, has := m.Get("content"); has && len(raw) > 0 && raw[0] == '{' {
			m.Set("content", append(append([]byte{'['}, raw...), ']'))
		} else {
			m.SetBlocks(nil)
		}
		changed = true
	}
	blocks, _ := m.Blocks()
	kept, removedSilent, removed := withoutSilentText(blocks)
	if removed > 0 {
		if len(kept) == 0 || (removedSilent > 0 && onlyReasoning(kept)) {
			return false, changed, false
		}
		m.SetBlocks(kept)
		changed = true
	}
	if m.StopReason() == transcript.StopLength && onlyReasoning(kept) && len(kept) > 0 {
		return false, changed, false
	}
	if len(kept) == 0 && (m.StopReason() == transcript.StopError || isZeroUsageStop(m, stale)) {
		m.SetBlocks([]*transcript.Block{transcript.TextBlock(streamErrorFallbackText)})
		return true, true, true
	}
	return true, changed, false
}

// contentIsArray reports whether m's content is a JSON array. Blocks
// answers for an array it holds, so the content of a message whose blocks
// hold edits is not encoded just to read its first byte; only content
// that is not held as blocks (absent, or bytes a rule wrote that do not
// parse as an array) is read.
func contentIsArray(m *transcript.Message) bool {
	if _, ok := m.Blocks(); ok {
		return true
	}
	raw, has := m.Get("content")
	return has && len(raw) > 0 && raw[0] == '['
}

func isSilentOrBlank(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || s == silentReplyToken
}

// withoutSilentText removes the blocks isSilentBlock reports; removedSilent counts the silent replies among removed.
func withoutSilentText(blocks []*transcript.Block) (kept []*transcript.Block, removedSilent, removed int) {
	for _, b := range blocks {
		if isSilentBlock(b) {
			removed++
			if s, _ := b.Text(); strings.TrimSpace(s) == silentReplyToken {
				removedSilent++
			}
		}
	}
	if removed == 0 {
		return blocks, 0, 0
	}
	kept = make([]*transcript.Block, 0, len(blocks)-removed)
	for _, b := range blocks {
		if !isSilentBlock(b) {
			kept = append(kept, b)
		}
	}
	return kept, removedSilent, removed
}

// isSilentBlock reports whether a block's string text is blank or the
// silent reply, or b is a text block without text.
//
// The text is read raw: a blank one is found without decoding it, and one
// that neither holds the token's bytes nor a \u escape (which could
// spell them) is not the silent reply; only the rest are decoded.
func isSilentBlock(b *transcript.Block) bool {
	if b.TrimmedIsNot("text", silentReplyToken) { // neither blank nor the token: known from the tape
		return false
	}
	raw, _ := b.Get("text")
	if len(raw) < 2 || raw[0] != '"' { // no string text
		return isBlankText(b)
	}
	if transcript.BlankString(raw) { // raw is the text member: not looked up again
		return true
	}
	if !bytes.Contains(raw, []byte(silentReplyToken)) && !bytes.Contains(raw, []byte(`\u`)) {
		return false
	}
	s, ok := b.Text()
	return ok && isSilentOrBlank(s)
}

// onlyReasoning reports whether every block is a thinking block or a blank
// text block, with at least one thinking block.
func onlyReasoning(blocks []*transcript.Block) bool {
	thinking := false
	for _, b := range blocks {
		switch {
		case b.IsThinking():
			thinking = true
		case isBlankText(b):
		default:
			return false
		}
	}
	return thinking
}

// usageTokenFields are the token counts of a usage object (spec §1.2).
var usageTokenFields = []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens"}

// hasZeroUsage reports whether m's usage has no non-zero token count. The
// usage of a compaction-stale turn says nothing (§3.14 zeroes it whatever it
// was), so such a turn never counts as zero-usage.
func hasZeroUsage(m *transcript.Message, stale bool) bool {
	if stale {
		return false
	}
	raw, ok := m.Get("usage")
	if !ok {
		return true
	}
	usage, err := transcript.ParseObject(raw)
	if err != nil {
		return true // not an object: the usage rule makes it the zero snapshot
	}
	for _, k := range usageTokenFields {
		if v, ok := usage.Number(k); ok && v != 0 {
			return false
		}
	}
	return true
}

// isZeroUsageStop reports whether m is a "stop" turn with zero usage (its
// content is checked by the caller).
func isZeroUsageStop(m *transcript.Message, stale bool) bool {
	return m.StopReason() == transcript.StopStop && hasZeroUsage(m, stale)
}

// trimTrailingFailures pops failed assistant turns from the end of the
// history (§3.2's trailing trim) and returns how many it popped. Rules that
// drop or fill messages later in the chain call it again, so that the
// chain stays idempotent and no history ends in a failed turn, which
// providers reject as an assistant prefill.
func trimTrailingFailures(t *transcript.Transcript, env *stage.Env) int {
	if len(t.Messages) == 0 || t.Messages[len(t.Messages)-1].Role() != transcript.RoleAssistant {
		return 0 // only an assistant is popped; spare the compaction scan
	}
	n := 0
	comp := compactionOf(env, t.Messages)
	for len(t.Messages) > 0 && isTrailingFailure(t.Messages[len(t.Messages)-1], comp.stale(t.Messages[len(t.Messages)-1], len(t.Messages)-1)) {
		t.Messages = t.Messages[:len(t.Messages)-1]
		n++
	}
	return n
}

// isTrailingFailure reports whether a last message must be popped (§3.2
// trailing trim): an empty failed turn, or one whose only block is the
// sentinel text and that failed or has zero usage.
func isTrailingFailure(m *transcript.Message, stale bool) bool {
	if m.Role() != transcript.RoleAssistant {
		return false
	}
	blocks, ok := m.Blocks()
	if !ok {
		return false
	}
	switch len(blocks) {
	case 0:
		return m.StopReason() == transcript.StopError || isZeroUsageStop(m, stale)
	case 1:
		s, isText := blocks[0].Text()
		return isText && blocks[0].Type() == transcript.BlockText && s == streamErrorFallbackText &&
			(m.StopReason() == transcript.StopError || hasZeroUsage(m, stale))
	}
	return false
}

// TrailingFailures is §3.2's trailing trim again, after pairing: a failed
// turn that was not last when §3.2 ran (a displaced result followed it)
// becomes last when pairing moves that result back to its call, and a
// second pass of the chain would pop it. Running the trim here makes one
// pass reach the fixed point (issue 16), for every target.
func TrailingFailures() stage.Stage {
	const name = "trailing_failures"
	return stage.Stage{Name: name, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		n := trimTrailingFailures(t, env)
		env.Report.Add(name, "trimmed", n)
		if n == 0 {
			env.NoEdit()
		}
		return nil
	}}
}

package turns

import (
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// mergeContent returns the blocks a message contributes to a merge: its
// array content, or one text block for a non-blank string content. Choice
// (the spec's port note to §3.12): OpenClaw lets a string content contribute
// nothing, which loses the text; here it becomes a text block. Any other
// content contributes nothing.
func mergeContent(m *transcript.Message) []*transcript.Block {
	if blocks, ok := m.Blocks(); ok {
		return blocks
	}
	if s, ok := m.ContentString(); ok && !transcript.IsBlank(s) {
		return []*transcript.Block{transcript.TextBlock(s)}
	}
	return nil
}

// mergeFromLater are the assistant members a later message of a run
// overwrites (spec §3.12.1).
var mergeFromLater = []string{"usage", "stopReason", "errorMessage"}

// mergeAssistants merges every run of consecutive assistant messages into its
// first message (spec §3.12.1): contents are concatenated, the first
// message's members are kept except usage, stopReason and errorMessage,
// which a later message that has them overwrites. Entries without a role
// pass through and do not break a run. Choice: a later message that adds no
// content (an empty turn) is merged away without overwriting anything, so
// that an empty "length" turn cannot make its predecessor a reasoning-only
// "length" turn that §3.2 would drop on a second pass. Choice: the timestamp travels with
// the usage (a later message that brings its usage brings its timestamp, or
// its lack of one), so that the compaction rules, which judge a usage by its
// turn's time, judge the merged turn as they judged the turn the usage came
// from. A merged turn that is not an error
// turn, though some of its parts came from one, gets §3.9's thought-signature
// cleanup on its blocks (error turns skip it), as the turn it became would
// have. Choice, for the same reason: the merged turn is the first message's
// (its provider, api and model), so when the target verifies signatures
// (policy.AllowProviderOwnedThinkingReplay) and not that turn's, it loses
// every thinking block a later message brought, as §3.4.3 drops a foreign
// turn's thinking (its own went there already): a later turn that named
// no provider, judged the target's own, must not carry its signatures into
// a turn the next pass judges foreign. It returns the new list, how many
// messages were merged away (the list itself when none was) and how many
// thinking blocks so dropped.
func mergeAssistants(msgs []*transcript.Message, p policy.Policy) (out []*transcript.Message, merged, foreign int) {
	if !hasAdjacent(msgs, transcript.RoleAssistant) {
		return msgs, 0, 0
	}
	out = make([]*transcript.Message, 0, len(msgs))
	var head *transcript.Message
	var content []*transcript.Block
	runLen := 0
	hadError := false
	verifies := p.AllowProviderOwnedThinkingReplay()
	verifier := p.TurnVerifier()
	flush := func() {
		if head != nil && runLen > 1 {
			if hadError && head.StopReason() != transcript.StopError && !p.PreserveSignatures {
				for _, b := range content {
					stripThoughtSignature(b, p.SanitizeThoughtSignatures)
				}
			}
			head.SetBlocks(content)
			if verifies && !verifier.Verifies(head) {
				foreign += dropThinking(head, everyBlock)
			}
		}
		head, content, runLen, hadError = nil, nil, 0, false
	}
	for _, m := range msgs {
		switch m.Role() {
		case "":
			out = append(out, m)
			continue
		case transcript.RoleAssistant:
			if head != nil {
				part := mergeContent(m)
				runLen++
				merged++
				if len(part) == 0 {
					continue
				}
				hadError = hadError || m.StopReason() == transcript.StopError
				content = append(content, part...)
				for _, k := range mergeFromLater {
					if v, ok := m.Get(k); ok {
						head.Set(k, v)
					}
				}
				if m.Has("usage") {
					if ts, ok := m.Get("timestamp"); ok {
						head.Set("timestamp", ts)
					} else {
						head.Delete("timestamp")
					}
				}
				continue
			}
			flush()
			head, runLen, hadError = m, 1, m.StopReason() == transcript.StopError
			content = append([]*transcript.Block(nil), mergeContent(m)...)
		default:
			flush()
		}
		out = append(out, m)
	}
	flush()
	return out, merged, foreign
}

// mergeUsers merges every run of consecutive user messages (spec §3.12.2):
// the merged message takes the last message's members, its content is all
// the run's contents in order, and its timestamp is the last one's, else the
// latest earlier one's. Choice: the merged message keeps a provenance only
// when every message of the run has the same one; otherwise the run mixes
// origins, each inter-session part already carries its marker in its own
// text, and a kept provenance would mark the other parts on a second pass.
// It stands where the run's first message stood;
// entries without a role pass through and do not break a run. It returns the
// new list and how many messages were merged away.
func mergeUsers(msgs []*transcript.Message) ([]*transcript.Message, int) {
	if !hasAdjacent(msgs, transcript.RoleUser) {
		return msgs, 0
	}
	out := make([]*transcript.Message, 0, len(msgs))
	var run []*transcript.Message
	slot, merged := -1, 0
	flush := func() {
		if len(run) > 1 {
			last := run[len(run)-1]
			var content []*transcript.Block
			var ts []byte
			for _, m := range run {
				content = append(content, mergeContent(m)...)
				if v, ok := m.Get("timestamp"); ok && string(v) != "null" {
					ts = v
				}
			}
			last.SetBlocks(content)
			if ts != nil && last.IsNull("timestamp") {
				last.Set("timestamp", ts)
			}
			if !sameProvenance(run) {
				last.Delete("provenance")
			}
			out[slot] = last
			merged += len(run) - 1
		}
		run, slot = nil, -1
	}
	for _, m := range msgs {
		switch m.Role() {
		case "":
			out = append(out, m)
			continue
		case transcript.RoleUser:
			if slot >= 0 {
				run = append(run, m)
				continue
			}
			slot = len(out)
			run = append(run, m)
		default:
			flush()
		}
		out = append(out, m)
	}
	flush()
	return out, merged
}

// hasAdjacent reports whether two messages of role follow each other, with
// only role-less entries between them.
func hasAdjacent(msgs []*transcript.Message, role string) bool {
	prev := ""
	for _, m := range msgs {
		r := m.Role()
		if r == "" {
			continue
		}
		if r == role && prev == role {
			return true
		}
		prev = r
	}
	return false
}

// sameProvenance reports whether every message of run has the same
// provenance member (absent counts as one value).
func sameProvenance(run []*transcript.Message) bool {
	first, had := run[0].Get("provenance")
	for _, m := range run[1:] {
		p, has := m.Get("provenance")
		if has != had || string(p) != string(first) {
			return false
		}
	}
	return true
}

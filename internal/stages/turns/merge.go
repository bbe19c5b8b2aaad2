package turns

import "github.com/hygiene-dev/hygiene/internal/transcript"

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
// pass through and do not break a run. It returns the new list and how many
// messages were merged away; the list itself when none was.
func mergeAssistants(msgs []*transcript.Message) ([]*transcript.Message, int) {
	if !hasAdjacent(msgs, transcript.RoleAssistant) {
		return msgs, 0
	}
	out := make([]*transcript.Message, 0, len(msgs))
	var head *transcript.Message
	var content []*transcript.Block
	merged, runLen := 0, 0
	flush := func() {
		if head != nil && runLen > 1 {
			head.SetBlocks(content)
		}
		head, content, runLen = nil, nil, 0
	}
	for _, m := range msgs {
		switch m.Role() {
		case "":
			out = append(out, m)
			continue
		case transcript.RoleAssistant:
			if head != nil {
				content = append(content, mergeContent(m)...)
				for _, k := range mergeFromLater {
					if v, ok := m.Get(k); ok {
						head.Set(k, v)
					}
				}
				runLen++
				merged++
				continue
			}
			flush()
			head, runLen = m, 1
			content = append([]*transcript.Block(nil), mergeContent(m)...)
		default:
			flush()
		}
		out = append(out, m)
	}
	flush()
	return out, merged
}

// mergeUsers merges every run of consecutive user messages (spec §3.12.2):
// the merged message takes the last message's members, its content is all
// the run's contents in order, and its timestamp is the last one's, else the
// latest earlier one's. It stands where the run's first message stood;
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

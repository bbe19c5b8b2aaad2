package turns

import (
	"context"
	"slices"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// AnthropicTurns is spec §3.12.2 (validateAnthropicTurns), after GeminiTurns:
//
//  1. Dangling tool uses. For each assistant with tool calls, the result ids
//     of its span (the messages up to the next assistant) are collected,
//     trimmed: toolResult and legacy tool messages, and toolResult/tool
//     blocks inside content. An assistant with thinking blocks is kept
//     unchanged only if every call has an id and a name and a result message
//     (not a block) with that id whose toolName is absent or equal; else its
//     whole content becomes the exact text "[tool calls omitted]", or [] when
//     stopReason is aborted or error, and (beyond OpenClaw) the results of
//     its calls in the span are removed, since Anthropic rejects a tool
//     result without its tool use. Without thinking, the unanswered calls
//     are removed, and a content this empties gets the same replacement.
//  2. Consecutive user messages are merged: the merged message takes the
//     last one's members, its timestamp is the last one's else the latest
//     earlier one's, and the contents are concatenated. Choice (the spec's
//     port note): a non-blank string content becomes a text block before the
//     merge instead of contributing nothing, so no user text is lost.
//     Prefix-binding Claude models are merged too: the spec knows them only
//     from the docs and gives no test for them.
func AnthropicTurns() stage.Stage {
	const name = "anthropic_turns"
	return stage.Stage{Name: name, On: anthropicTurnsOn, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !anthropicTurnsOn(env) {
			return nil
		}
		var changed, removed, n int
		t.Messages, changed, removed = stripDangling(t.Messages)
		env.Report.Add(name, "dangling_stripped", changed)
		env.Report.Add(name, "results_removed", removed)
		t.Messages, n = mergeUsers(t.Messages)
		env.Report.Add(name, "merged", n)
		return nil
	}}
}

// spanResults are the tool results that follow one assistant: each result
// message's trimmed id with its toolName ("" when absent), and the ids of
// result blocks inside content. Spans are short, so they are searched in
// order, and stripDangling reuses one value from span to span (no
// allocation per assistant); a span longer than spanIndexMin is also
// indexed by id, so a long span with many calls stays linear.
type spanResults struct {
	names    []spanName
	blocks   []string
	byID     map[string][]string // names by id, for a long span
	blockIDs map[string]bool     // blocks, for a long span
}

// spanName is one result message of a span.
type spanName struct{ id, name string }

// spanIndexMin is the span length above which spanResults is indexed.
const spanIndexMin = 32

func (s *spanResults) answered(id string) bool {
	if s.byID != nil {
		return len(s.byID[id]) > 0 || s.blockIDs[id]
	}
	for _, n := range s.names {
		if n.id == id {
			return true
		}
	}
	return slices.Contains(s.blocks, id)
}

// hasName reports whether a result message of the span with the given id
// has the tool name name or none.
func (s *spanResults) hasName(id, name string) bool {
	if s.byID != nil {
		for _, n := range s.byID[id] {
			if n == "" || n == name {
				return true
			}
		}
		return false
	}
	for _, n := range s.names {
		if n.id == id && (n.name == "" || n.name == name) {
			return true
		}
	}
	return false
}

// stripDangling is step 1 over the whole list. It returns the new list,
// how many assistants it changed and how many results it removed: when the
// thinking path omits an assistant's calls, the results of those calls in
// its span (messages, and result blocks inside content) go too, because a
// tool result without its tool use is what Anthropic rejects next ("unexpected
// tool_use_id found in tool_result blocks"); OpenClaw leaves them.
func stripDangling(msgs []*transcript.Message) ([]*transcript.Message, int, int) {
	changed, removed := 0, 0
	var out []*transcript.Message // nil until the first removal
	var omitted map[string]bool   // call ids omitted by the current span's assistant
	var span spanResults
	for i, m := range msgs {
		role := m.Role()
		if role == transcript.RoleAssistant {
			omitted = nil
			if len(m.ToolCalls()) > 0 {
				var did bool
				collectSpan(msgs[i+1:], &span)
				did, omitted = stripAssistantDangling(m, &span)
				if did {
					changed++
				}
			}
		} else if len(omitted) > 0 {
			if role == transcript.RoleToolResult || role == transcript.RoleTool {
				if id, ok := m.ResultID(); ok && omitted[id] {
					removed++
					if out == nil {
						out = append(make([]*transcript.Message, 0, len(msgs)), msgs[:i]...)
					}
					continue
				}
			}
			removed += dropResultBlocks(m, omitted)
		}
		if out != nil {
			out = append(out, m)
		}
	}
	if out == nil {
		out = msgs
	}
	return out, changed, removed
}

// dropResultBlocks removes the toolResult/tool blocks answering an omitted
// call from m's content and returns how many it removed.
func dropResultBlocks(m *transcript.Message, omitted map[string]bool) int {
	blocks, _ := m.Blocks()
	isOmitted := func(b *transcript.Block) bool {
		if t := b.Type(); t != transcript.RoleToolResult && t != transcript.RoleTool {
			return false
		}
		id, ok := blockResultID(b)
		return ok && omitted[id]
	}
	n := 0
	for _, b := range blocks {
		if isOmitted(b) {
			n++
		}
	}
	if n == 0 {
		return 0
	}
	kept := make([]*transcript.Block, 0, len(blocks)-n)
	for _, b := range blocks {
		if !isOmitted(b) {
			kept = append(kept, b)
		}
	}
	m.SetBlocks(kept)
	return n
}

// collectSpan gathers into s the result ids of the messages before the
// next assistant.
func collectSpan(after []*transcript.Message, s *spanResults) {
	s.names, s.blocks, s.byID, s.blockIDs = s.names[:0], s.blocks[:0], nil, nil
	for _, m := range after {
		role := m.Role()
		if role == transcript.RoleAssistant {
			break
		}
		if role == transcript.RoleToolResult || role == transcript.RoleTool {
			if id, ok := m.ResultID(); ok {
				name, _ := m.String("toolName")
				s.names = append(s.names, spanName{id, strings.TrimSpace(name)})
			}
		}
		blocks, _ := m.Blocks()
		for _, b := range blocks {
			if t := b.Type(); t == transcript.RoleToolResult || t == transcript.RoleTool {
				if id, ok := blockResultID(b); ok {
					s.blocks = append(s.blocks, id)
				}
			}
		}
	}
	if len(s.names)+len(s.blocks) > spanIndexMin {
		s.byID, s.blockIDs = make(map[string][]string, len(s.names)), make(map[string]bool, len(s.blocks))
		for _, n := range s.names {
			s.byID[n.id] = append(s.byID[n.id], n.name)
		}
		for _, id := range s.blocks {
			s.blockIDs[id] = true
		}
	}
}

// blockResultID is a result block's trimmed id (the same members as a
// result message's).
func blockResultID(b *transcript.Block) (string, bool) {
	for _, k := range transcript.ResultIDFields {
		if s, ok := b.String(k); ok {
			if s = transcript.TrimID(s); s != "" {
				return s, true
			}
		}
	}
	return "", false
}

// stripAssistantDangling applies step 1 to one assistant. omitted holds the
// trimmed ids of the calls the thinking path replaced, whose results must go.
func stripAssistantDangling(m *transcript.Message, s *spanResults) (changed bool, omitted map[string]bool) {
	blocks, _ := m.Blocks()
	thinking := false
	for _, b := range blocks {
		if b.IsThinking() {
			thinking = true
			break
		}
	}
	if thinking {
		for _, b := range blocks {
			if b.IsToolCall() && !answeredByMessage(b, s) {
				omitted = map[string]bool{}
				for _, c := range blocks {
					if id, ok := c.CallID(); ok && c.IsToolCall() {
						omitted[transcript.TrimID(id)] = true
					}
				}
				omitToolCalls(m)
				return true, omitted
			}
		}
		return false, nil
	}
	kept := make([]*transcript.Block, 0, len(blocks))
	for _, b := range blocks {
		if id, ok := b.CallID(); ok && b.IsToolCall() && !s.answered(transcript.TrimID(id)) {
			continue
		}
		kept = append(kept, b)
	}
	if len(kept) == len(blocks) {
		return false, nil
	}
	if len(kept) == 0 {
		omitToolCalls(m)
	} else {
		m.SetBlocks(kept)
	}
	return true, nil
}

// answeredByMessage is the thinking path's test: the call has an id and a
// name, and a result message with that id whose name is unknown or equal.
func answeredByMessage(b *transcript.Block, s *spanResults) bool {
	id, ok := b.CallID()
	name, _ := b.String("name")
	if !ok || transcript.TrimID(id) == "" || strings.TrimSpace(name) == "" {
		return false
	}
	return s.hasName(transcript.TrimID(id), strings.TrimSpace(name))
}

// omitToolCalls replaces the content with "[tool calls omitted]", or with
// [] for an aborted or failed turn.
func omitToolCalls(m *transcript.Message) {
	switch m.StopReason() {
	case transcript.StopAborted, transcript.StopError:
		m.SetBlocks(nil)
	default:
		m.SetBlocks([]*transcript.Block{transcript.TextBlock(toolCallsOmitted)})
	}
}

// anthropicTurnsOn is the guard of §3.12.2: the policy validates Anthropic
// turns.
func anthropicTurnsOn(env *stage.Env) bool { return env.Policy.ValidateAnthropicTurns }

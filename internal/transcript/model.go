package transcript

import "strings"

// Roles of spec §1.2.
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleCompactionSummary = "compactionSummary"
	RoleBranchSummary     = "branchSummary"
	RoleCustom            = "custom"
	RoleTool              = "tool" // legacy tool-result role
)

// Content block types of spec §1.3.
const (
	BlockText             = "text"
	BlockImage            = "image"
	BlockThinking         = "thinking"
	BlockRedactedThinking = "redacted_thinking"
	BlockToolCall         = "toolCall"
	BlockToolUse          = "toolUse"      // legacy alias of toolCall
	BlockFunctionCall     = "functionCall" // legacy alias of toolCall
	BlockToolCallSnake    = "tool_call"    // snake-case legacy alias (input validation only)
	BlockToolUseSnake     = "tool_use"     // snake-case legacy alias (input validation only)
	BlockFunctionSnake    = "function_call"
	BlockVideo            = "video" // legacy inline video
)

// Stop reasons of spec §1.2.
const (
	StopStop    = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
	StopError   = "error"
	StopAborted = "aborted"
)

// ResultIDFields are the tool-result members that may carry the call id, in
// the extraction order of spec §3.7 (the first non-blank wins).
var ResultIDFields = []string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"}

// IsToolCall reports whether the block is a tool call for pairing and id
// rewriting: type toolCall, toolUse or functionCall (spec §3.6, §3.7). The
// snake-case aliases count only for input validation (IsAnyToolCall).
func (b *Block) IsToolCall() bool {
	switch b.Type() {
	case BlockToolCall, BlockToolUse, BlockFunctionCall:
		return true
	}
	return false
}

// IsAnyToolCall reports whether the block is a tool call of any spelling,
// the snake-case legacy aliases included (spec §3.5).
func (b *Block) IsAnyToolCall() bool {
	switch b.Type() {
	case BlockToolCall, BlockToolUse, BlockFunctionCall, BlockToolCallSnake, BlockToolUseSnake, BlockFunctionSnake:
		return true
	}
	return false
}

// IsThinking reports whether the block is a thinking or redacted_thinking block.
func (b *Block) IsThinking() bool {
	t := b.Type()
	return t == BlockThinking || t == BlockRedactedThinking
}

// CallID returns a tool call's id member when it is a non-empty string
// (spec §1.3: otherwise the block is not counted as a call).
func (b *Block) CallID() (string, bool) {
	id, ok := b.String("id")
	return id, ok && id != ""
}

// ToolCalls returns the message's tool-call blocks that have a non-empty id
// (IsToolCall and CallID), in content order. When they are one run of the
// content (the usual turn: some text, then its calls) the result is that
// run of Blocks, not a copy: read it, do not write it.
func (m *Message) ToolCalls() []*Block {
	blocks, _ := m.Blocks()
	var calls []*Block
	from, to := -1, -1 // the run blocks[from:to] holds every call so far
	for i, b := range blocks {
		if !b.IsToolCall() {
			continue
		}
		if _, ok := b.CallID(); !ok {
			continue
		}
		switch {
		case calls != nil:
			calls = append(calls, b)
		case from < 0:
			from, to = i, i+1
		case to == i:
			to++
		default: // not one run: copy the calls
			calls = append(append(make([]*Block, 0, to-from+len(blocks)-i), blocks[from:to]...), b)
		}
	}
	if calls == nil && from >= 0 {
		return blocks[from:to:to]
	}
	return calls
}

// ResultID returns the trimmed id of a tool result: the first non-blank of
// ResultIDFields (spec §3.7).
func (m *Message) ResultID() (string, bool) {
	for _, k := range ResultIDFields {
		if s, ok := m.String(k); ok {
			if s = TrimID(s); s != "" {
				return s, true
			}
		}
	}
	return "", false
}

// RawResultID returns a tool result's id as written, untrimmed: the first
// of ResultIDFields that is not blank ("" when none). Pairing compares it
// with the call's id as written, because an exact match wins over a match
// after trimming.
func (m *Message) RawResultID() string {
	for _, k := range ResultIDFields {
		if s, ok := m.String(k); ok && TrimID(s) != "" {
			return s
		}
	}
	return ""
}

// StopReason returns the assistant's stopReason ("" when absent).
func (m *Message) StopReason() string { s, _ := m.String("stopReason"); return s }

// Timestamp returns the message's timestamp in ms (number or ISO string).
func (m *Message) Timestamp() (int64, bool) {
	raw, ok := m.Get("timestamp")
	if !ok {
		return 0, false
	}
	return ParseTimestamp(raw)
}

// IsBlank reports whether s is empty after trimming white space.
func IsBlank(s string) bool { return strings.TrimSpace(s) == "" }

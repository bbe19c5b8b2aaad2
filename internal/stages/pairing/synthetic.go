package pairing

import (
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// DefaultMissingToolResultText is the text of a synthetic tool result for
// every family but OpenAI Responses, used when the settings give none. It is
// our own wording of what spec §3.7 says the current text means: the outcome
// is unknown, only read-only or idempotent operations may be retried, and
// the current state must be checked before anything with possible side
// effects is repeated.
const DefaultMissingToolResultText = "[tool result missing] The outcome of this tool call is unknown: it may or may not have run. " +
	"Only a read-only or idempotent operation may be retried as is; before repeating an operation " +
	"that may have had side effects, verify the current state first."

// legacyMissingToolResultText is the synthetic text of older OpenClaw
// builds (spec §3.7, exact). A result carrying it is still recognised as
// synthetic.
const legacyMissingToolResultText = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."

// responsesMissingToolResultText is the synthetic text for the OpenAI
// Responses family (spec §3.7, exact), as in Codex history normalisation.
const responsesMissingToolResultText = "aborted"

// syntheticDetails marks a synthetic result so that a late real result can
// replace it (spec §3.7). The details member is stripped before sending
// (spec §3.10), by a later stage.
var syntheticDetails = []byte(`{"openclawSyntheticMissingToolResult":true,"reason":"missing_tool_result"}`)

// syntheticContent returns the raw content array of a synthetic result. The
// synthetic results of one run share it, so it is capped at its length: an
// append by a later stage copies instead of writing into a sibling's value.
func syntheticContent(text string) []byte {
	dst := []byte(`[{"type":"text","text":`)
	dst = transcript.AppendString(dst, text)
	dst = append(dst, `}]`...)
	return dst[:len(dst):len(dst)]
}

// newSynthetic builds the synthetic missing result for a call, in the field
// order of spec §3.7. The timestamp is left out when ts is not known.
func newSynthetic(callID, name string, content []byte, ts int64, hasTS bool) *transcript.Message {
	if name == "" {
		name = "unknown"
	}
	fields := make([]transcript.Field, 0, 7)
	fields = append(fields,
		transcript.Field{Key: "role", Value: []byte(`"toolResult"`)},
		transcript.Field{Key: "toolCallId", Value: transcript.JSONString(callID)},
		transcript.Field{Key: "toolName", Value: transcript.JSONString(name)},
		transcript.Field{Key: "content", Value: content},
		transcript.Field{Key: "details", Value: syntheticDetails},
		transcript.Field{Key: "isError", Value: []byte("true")},
	)
	if hasTS {
		fields = append(fields, transcript.Field{Key: "timestamp", Value: transcript.JSONInt(ts)})
	}
	return transcript.NewMessage(fields...)
}

// isSynthetic reports whether a tool result was made by a pairing repair:
// isError is truthy and either details.openclawSyntheticMissingToolResult is
// true or a text block holds the legacy text exactly (spec §3.7).
func isSynthetic(m *transcript.Message) bool {
	raw, _ := m.Get("isError")
	if !truthy(raw) {
		return false
	}
	if d, ok := m.Get("details"); ok && len(d) > 0 && d[0] == '{' {
		if obj, err := transcript.ParseObject(d); err == nil {
			if v, ok := obj.Bool("openclawSyntheticMissingToolResult"); ok && v {
				return true
			}
		}
	}
	blocks, _ := m.Blocks()
	for _, b := range blocks {
		if b.Type() == transcript.BlockText {
			if s, ok := b.Text(); ok && s == legacyMissingToolResultText {
				return true
			}
		}
	}
	return false
}

// truthy reports whether a raw JSON value is truthy as JavaScript sees it:
// anything but absent, null, false, 0 and "".
func truthy(raw []byte) bool {
	switch string(raw) {
	case "", "null", "false", `""`:
		return false
	}
	if raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' {
		v, err := strconv.ParseFloat(string(raw), 64)
		return err == nil && v != 0
	}
	return true
}

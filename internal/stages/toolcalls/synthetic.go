package toolcalls

import (
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// legacySyntheticText is the April-build text of a synthetic missing tool
// result (spec §3.7, exact); it still marks a result as synthetic.
const legacySyntheticText = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."

// syntheticMarker is the details member that marks a synthetic result.
const syntheticMarker = "openclawSyntheticMissingToolResult"

// isSynthetic is the spec's isSynthetic(result): isError is truthy and either
// details.openclawSyntheticMissingToolResult is true or a text block is the
// legacy synthetic text (or the configured missing-result text, which is what
// this worker's own pairing repair writes).
func isSynthetic(m *transcript.Message, configuredText string) bool {
	if !truthy(m, "isError") {
		return false
	}
	if raw, ok := m.Get("details"); ok && len(raw) > 0 && raw[0] == '{' {
		if obj, err := transcript.ParseObject(raw); err == nil {
			if v, ok := obj.Bool(syntheticMarker); ok && v {
				return true
			}
		}
	}
	blocks, _ := m.Blocks()
	for _, b := range blocks {
		if b.Type() != transcript.BlockText {
			continue
		}
		if text, ok := b.Text(); ok && (text == legacySyntheticText || configuredText != "" && text == configuredText) {
			return true
		}
	}
	return false
}

// truthy reports whether a member is truthy the way JavaScript sees it: true,
// a non-zero number, a non-empty string, an object or an array.
func truthy(m *transcript.Message, key string) bool {
	raw, ok := m.Get(key)
	if !ok || len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case 't', '{', '[':
		return true
	case '"':
		return len(raw) > 2
	case 'f', 'n':
		return false
	}
	n, ok := m.Number(key)
	return ok && n != 0
}

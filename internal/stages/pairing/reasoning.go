package pairing

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// isReplayableReasoning reports whether a block is "replayable OpenAI
// reasoning" (spec §3.8.2): a thinking block whose thinkingSignature, a JSON
// string holding an object or an object itself, has an id starting with rs_
// and a type that is "reasoning" or starts with "reasoning.". A GitHub
// Copilot reasoning item, whose id is base64 (contract.CopilotItemID), is
// one too: its Responses endpoint has the same rules.
func isReplayableReasoning(b *transcript.Block) bool {
	if b.Type() != transcript.BlockThinking {
		return false
	}
	raw, ok := b.Get("thinkingSignature")
	if !ok || len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		s, ok := b.String("thinkingSignature")
		if !ok {
			return false
		}
		raw = []byte(s)
	}
	obj, err := transcript.ParseObject(raw)
	if err != nil {
		return false
	}
	id, _ := obj.String("id")
	typ, _ := obj.String("type")
	return (strings.HasPrefix(id, "rs_") || contract.CopilotItemID(id)) && (typ == "reasoning" || strings.HasPrefix(typ, "reasoning."))
}

package turns

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TextRepair makes every string of every message valid text before any
// other rule reads it (beyond OpenClaw; issue 16): invalid UTF-8 (a tool
// printed a binary file) and lone UTF-16 surrogates (an emoji cut in two,
// "\ud83d" with no low half) become U+FFFD, in text, tool arguments, tool
// results, summaries and unknown members alike. Anthropic refuses the whole
// request otherwise ("no low surrogate in string": anthropics/claude-code
// #2108, #3277, #6273, #6508, #8108), and every retry fails the same way.
//
// A signed thinking block is never edited, since that breaks its signature:
// one that holds invalid text is dropped the way §3.4.3 drops a thinking
// block without a replayable signature, and an assistant this empties gets
// the text "[assistant reasoning omitted]". Unsigned thinking is repaired
// like any text. Messages without invalid text (the decoder marks the
// others) are not looked at and stay byte-identical.
//
// Report: "repaired" counts the U+FFFD written, "messages" the messages
// changed, "signed_thinking_dropped" the signed blocks dropped.
func TextRepair() stage.Stage {
	const name = "text_repair"
	return stage.Stage{Name: name, Needs: transcript.FactInvalidText, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		repaired, messages, dropped := 0, 0, 0
		for _, m := range t.Messages {
			if !m.HasInvalidText() {
				continue
			}
			d := 0
			if m.Role() == transcript.RoleAssistant {
				d = dropThinking(m, func(b *transcript.Block) bool { return hasReplayableSignature(b) && b.HasInvalidText() })
			}
			n := m.RepairText()
			if n > 0 || d > 0 {
				messages++
			}
			repaired += n
			dropped += d
		}
		env.Report.Add(name, "repaired", repaired)
		env.Report.Add(name, "messages", messages)
		env.Report.Add(name, "signed_thinking_dropped", dropped)
		return nil
	}}
}

package pairing

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// OrphanReasoningName is the report key and metric label of OrphanReasoning.
const OrphanReasoningName = "orphan_reasoning"

// OrphanReasoning is the OpenAI Responses orphan-reasoning downgrade of spec
// §3.8.2 (§4 step 10, Responses family only). In every assistant turn it
// drops each replayable OpenAI reasoning block that no non-thinking block
// follows (the Responses API rejects a reasoning item without its following
// item); when env.ModelChanged, it drops every replayable reasoning block
// (dropReplayableReasoning). A turn left with no blocks is removed. Other
// thinking blocks are untouched.
//
// Choice: a redacted_thinking block does not count as a following item,
// since it becomes no Responses output item either. Counts: blocks_dropped,
// messages_dropped.
func OrphanReasoning() stage.Stage {
	return stage.Stage{Name: OrphanReasoningName, On: responsesOn, Needs: transcript.FactThinking, Apply: applyOrphanReasoning}
}

func applyOrphanReasoning(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	if !responsesOn(env) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dropAll := env.ModelChanged
	var out []*transcript.Message // nil until a message is removed
	blocksDropped, messagesDropped := 0, 0
	for i, m := range t.Messages {
		if m.Role() == transcript.RoleAssistant {
			if kept, removed := dropOrphanReasoning(m, dropAll); removed > 0 {
				blocksDropped += removed
				if kept == 0 {
					if out == nil {
						out = append(make([]*transcript.Message, 0, len(t.Messages)-1), t.Messages[:i]...)
					}
					messagesDropped++
					continue
				}
			}
		}
		if out != nil {
			out = append(out, m)
		}
	}
	if out != nil {
		t.Messages = out
	}
	env.Report.Add(OrphanReasoningName, "blocks_dropped", blocksDropped)
	env.Report.Add(OrphanReasoningName, "messages_dropped", messagesDropped)
	return nil
}

// dropOrphanReasoning removes the orphaned (or, with dropAll, every)
// replayable reasoning block of one assistant and returns how many blocks
// are left and how many it removed. An untouched message keeps its blocks.
func dropOrphanReasoning(m *transcript.Message, dropAll bool) (kept, removed int) {
	blocks, ok := m.Blocks()
	if !ok {
		return 0, 0
	}
	lastItem := -1 // index of the last non-thinking block
	for i, b := range blocks {
		if !b.IsThinking() {
			lastItem = i
		}
	}
	drop := func(i int, b *transcript.Block) bool {
		return (dropAll || i > lastItem) && isReplayableReasoning(b)
	}
	for i, b := range blocks {
		if drop(i, b) {
			removed++
		}
	}
	if removed == 0 {
		return len(blocks), 0
	}
	next := make([]*transcript.Block, 0, len(blocks)-removed)
	for i, b := range blocks {
		if !drop(i, b) {
			next = append(next, b)
		}
	}
	if len(next) > 0 {
		m.SetBlocks(next)
	}
	return len(next), removed
}

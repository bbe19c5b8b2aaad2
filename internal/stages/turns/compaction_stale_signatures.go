package turns

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// CompactionStaleSignatures is spec §3.4.2, for signed-thinking providers
// and policies that preserve signatures: with T the newest parseable
// timestamp of the compactionSummary messages, every assistant whose own
// timestamp parses and is strictly before T loses the signatures of its
// thinking blocks (compaction changed the prefix they are bound to).
// Assistants without a timestamp, or at or after T, are untouched.
func CompactionStaleSignatures() stage.Stage {
	const name = "compaction_stale_signatures"
	return stage.Stage{Name: name, On: signaturesOn, Needs: transcript.FactCompaction, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !signaturesOn(env) {
			return nil
		}
		boundary, ok := latestCompaction(t.Messages)
		if !ok {
			return nil
		}
		n := 0
		for _, m := range t.Messages {
			if m.Role() != transcript.RoleAssistant {
				continue
			}
			if ts, ok := m.Timestamp(); ok && ts < boundary {
				n += stripMessageSignatures(m)
			}
		}
		env.Report.Add(name, "stripped", n)
		return nil
	}}
}

// latestCompaction returns the newest parseable timestamp among the
// compactionSummary messages.
func latestCompaction(msgs []*transcript.Message) (int64, bool) {
	var latest int64
	found := false
	for _, m := range msgs {
		if m.Role() != transcript.RoleCompactionSummary {
			continue
		}
		if ts, ok := m.Timestamp(); ok && (!found || ts > latest) {
			latest, found = ts, true
		}
	}
	return latest, found
}

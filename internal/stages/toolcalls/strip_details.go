package toolcalls

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// detailsStage is the report key and metric label of StripDetails.
const detailsStage = "strip_details"

// StripDetails returns the rule that removes the "details" member from every
// tool result (spec §3.10, always on): details are local state (exit codes,
// synthetic-result provenance) that is never sent to a provider. Nothing else
// changes; a history without details is left untouched.
func StripDetails() stage.Stage {
	return stage.Stage{Name: detailsStage, Needs: transcript.FactDetails, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		n := 0
		for _, c := range stage.ChunkResults(env, len(t.Messages), func(lo, hi int) detailsCount {
			var c detailsCount
			for i := lo; i < hi; i++ {
				if i%ctxCheckEvery == 0 {
					if c.err = ctx.Err(); c.err != nil {
						return c
					}
				}
				if m := t.Messages[i]; m.IsObject() && m.Role() == transcript.RoleToolResult && m.Delete("details") {
					c.removed++
				}
			}
			return c
		}) {
			if c.err != nil {
				return c.err
			}
			n += c.removed
		}
		env.Report.Add(detailsStage, "removed", n)
		if n == 0 {
			env.NoEdit() // every removal is counted: none, nothing edited
		}
		return nil
	}}
}

// detailsCount is what the details strip removed in a run of messages, or
// the context's error that stopped it.
type detailsCount struct {
	removed int
	err     error
}

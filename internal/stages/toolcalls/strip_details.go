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
	return stage.Stage{Name: detailsStage, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		n := 0
		for i, m := range t.Messages {
			if i%ctxCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if m.IsObject() && m.Role() == transcript.RoleToolResult && m.Delete("details") {
				n++
			}
		}
		env.Report.Add(detailsStage, "removed", n)
		return nil
	}}
}

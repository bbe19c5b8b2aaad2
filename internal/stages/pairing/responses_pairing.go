package pairing

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// ResponsesPairingName is the report key and metric label of ResponsesPairing.
const ResponsesPairingName = "responses_pairing"

// ResponsesPairing is the first step of spec §4 step 10 for the OpenAI
// Responses family: the same pairing repair as ToolResultPairing (drop
// policy), with the exact synthetic text "aborted" that Codex history
// normalisation uses. It runs whenever the API is in the Responses family,
// because the Responses invariant (spec §3.15) requires every call to be
// answered. Counts are reported as ToolResultPairing's, under this name.
func ResponsesPairing() stage.Stage {
	return stage.Stage{Name: ResponsesPairingName, On: responsesOn, Needs: pairingNeeds, Adds: syntheticResult, Apply: applyResponsesPairing}
}

// responsesOn is the guard of the OpenAI Responses family's rules: the
// target is of that family.
func responsesOn(env *stage.Env) bool { return env.Policy.IsResponsesAPI() }

func applyResponsesPairing(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	if !responsesOn(env) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	runRepair(t, env, ResponsesPairingName, responsesMissingToolResultText)
	return nil
}

package turns

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// GoogleBootstrap is spec §3.11 (applyGoogleTurnOrdering). It is one rule for
// both places of §4 — the Google plugin's hook (step 15, Google family) and
// the generic fallback (step 18, policy ApplyGoogleTurnOrdering, the strict
// OpenAI-compatible rows) — and belongs at step 15: nothing between the two
// steps changes the first message, so a second place would be a no-op.
//
// When the first message is an assistant it prepends
// {"role":"user","content":"(session bootstrap)","timestamp":…}; a history
// that starts with anything else, such as an earlier bootstrap turn, is
// left alone. The timestamp is the job's now_ms, else the assistant's own
// timestamp, and is left out when neither exists. For the Google family it
// also asks the runner to persist the google-turn-ordering-bootstrap custom
// entry ({timestamp}), once: not when the session already has one, and not
// twice in a job.
func GoogleBootstrap() stage.Stage {
	const name = "google_bootstrap"
	return stage.Stage{Name: name, On: googleBootstrapOn, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !googleBootstrapOn(env) {
			return nil
		}
		google := env.Policy.IsGoogleFamily()
		if len(t.Messages) == 0 || t.Messages[0].Role() != transcript.RoleAssistant {
			return nil
		}
		first := t.Messages[0]
		ts, hasTS := stampMs(env, first)
		t.Messages = append([]*transcript.Message{bootstrapTurn(ts, hasTS)}, t.Messages...)
		env.Report.Add(name, "prepended", 1)
		if google && !hasCustomEntry(t, customGoogleBootstrap) {
			data := []byte("{}")
			if hasTS {
				data = append(append([]byte(`{"timestamp":`), transcript.JSONInt(ts)...), '}')
			}
			t.AppendEntries = append(t.AppendEntries, transcript.CustomEntry{CustomType: customGoogleBootstrap, Data: data})
			env.Report.Add(name, "marker", 1)
		}
		return nil
	}}
}

// bootstrapTurn builds the exact "(session bootstrap)" user turn.
func bootstrapTurn(ts int64, hasTS bool) *transcript.Message {
	fields := []transcript.Field{
		{Key: "role", Value: transcript.JSONString(transcript.RoleUser)},
		{Key: "content", Value: transcript.JSONString(sessionBootstrap)},
	}
	if hasTS {
		fields = append(fields, transcript.Field{Key: "timestamp", Value: transcript.JSONInt(ts)})
	}
	return transcript.NewMessage(fields...)
}

// hasCustomEntry reports whether the session has, or this job already asked
// to append, a custom entry of the type.
func hasCustomEntry(t *transcript.Transcript, customType string) bool {
	for _, list := range [][]transcript.CustomEntry{t.CustomEntries, t.AppendEntries} {
		for _, e := range list {
			if e.CustomType == customType {
				return true
			}
		}
	}
	return false
}

// googleBootstrapOn is the guard of §3.11: a Google target, or a policy
// that applies Google's turn ordering.
func googleBootstrapOn(env *stage.Env) bool {
	return env.Policy.IsGoogleFamily() || env.Policy.ApplyGoogleTurnOrdering
}

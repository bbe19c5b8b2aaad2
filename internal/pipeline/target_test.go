package pipeline

import (
	"reflect"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestTargetOfIsTheTargetsOwn: the facts a processor keeps of the last
// job's target are, for every job of a sequence whose targets repeat and
// change, exactly what the target resolves to afresh (policy.Resolve,
// stage.ModelOf), never another target's.
func TestTargetOfIsTheTargetsOwn(t *testing.T) {
	cfg := config.Default()
	p := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{})
	anthropic := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	openai := transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}
	google := transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"}
	mistral := transcript.Target{Provider: "mistral", API: "openai-completions", Model: "mistral-large-latest"}
	for i, tg := range []transcript.Target{anthropic, anthropic, openai, google, google, anthropic, mistral, openai, openai} {
		got := p.targetOf(tg)
		if got.target != tg {
			t.Fatalf("job %d: facts of %+v for target %+v", i, got.target, tg)
		}
		if want := policy.Resolve(tg); !reflect.DeepEqual(got.policy, want) {
			t.Fatalf("job %d (%+v): policy %+v, resolved afresh %+v", i, tg, got.policy, want)
		}
		if want := stage.ModelOf(tg); !reflect.DeepEqual(got.model, want) {
			t.Fatalf("job %d (%+v): budget model %+v, afresh %+v", i, tg, got.model, want)
		}
	}
	if first := p.targetOf(openai); p.targetOf(openai) != first {
		t.Fatal("the same target twice in a row should share its facts")
	}
}

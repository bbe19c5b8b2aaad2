package toolcalls

import (
	"context"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Targets the vectors use.
var (
	anthropic   = stagetest.Anthropic
	bedrock     = transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4-5"}
	google      = transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"}
	mistral     = transcript.Target{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"}
	responses   = transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}
	completions = transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}
	moonshot    = transcript.Target{Provider: "moonshot", API: "openai-completions", Model: "kimi-k2"}
	openrouter  = transcript.Target{Provider: "openrouter", API: "openai-completions", Model: "moonshotai/kimi-k2"}
	kimiAnthro  = transcript.Target{Provider: "kimi-coding", API: "anthropic-messages", Model: "k2"}
)

// runPolicy runs stages with a policy built by hand (for limits no table row
// has) and returns the output and report.
func runPolicy(tb testing.TB, p policy.Policy, input string, stages ...stage.Stage) ([]byte, *stage.Report) {
	tb.Helper()
	tr, err := transcript.FromMessages([]byte(input), transcript.Target{Provider: p.Provider, API: p.API, Model: p.Model})
	if err != nil {
		tb.Fatalf("fixture: %v", err)
	}
	env := &stage.Env{Policy: p, Report: stage.NewReport()}
	for _, s := range stages {
		if err := s.Apply(context.Background(), tr, env); err != nil {
			tb.Fatalf("%s: %v", s.Name, err)
		}
	}
	return tr.MessagesJSON(), env.Report
}

// idCase is one table case for an id or input rule.
type idCase struct {
	name    string
	target  transcript.Target
	allowed []string
	in      string
	want    string // "" means: output byte-identical to in
}

// run applies the stages and compares the output with want.
func (c idCase) run(t *testing.T, stages ...stage.Stage) stagetest.Result {
	t.Helper()
	target := c.target
	if target == (transcript.Target{}) {
		target = anthropic
	}
	sc := stagetest.Case{Target: target, Settings: stage.Settings{Request: settings.Request{AllowedToolNames: c.allowed}}}
	res := sc.Apply(t, c.in, stages...)
	if c.want == "" {
		if string(res.JSON) != c.in {
			t.Errorf("want the input unchanged\n got: %s\n  in: %s", res.JSON, c.in)
		}
		if res.Report.Stages.Len() != 0 {
			t.Errorf("unchanged input reported changes: %v", res.Report.Stages)
		}
		return res
	}
	stagetest.Equal(t, res.JSON, c.want)
	sc.CheckProperties(t, []byte(c.in), stages...)
	return res
}

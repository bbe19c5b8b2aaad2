package turns

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Targets the vectors use.
var (
	anthropicTarget = stagetest.Anthropic
	googleTarget    = transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"}
	bedrockTarget   = transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-opus-4-1-v1:0"}
	copilotTarget   = transcript.Target{Provider: "github-copilot", API: "openai-completions", Model: "claude-sonnet-4"}
	vllmTarget      = transcript.Target{Provider: "vllm", API: "openai-completions", Model: "meta-llama/Llama-3.3-70B-Instruct"}
	openaiTarget    = transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}
)

// ruleCase is one table row: a run of stages over in, expecting want.
type ruleCase struct {
	name   string
	c      stagetest.Case
	in     string
	want   string
	report map[string]int // expected counts under the stage's name; nil: not checked
}

// runCases runs every case through the stages, checks the output, the
// report when given, and that a second run over the output changes nothing.
func runCases(t *testing.T, cases []ruleCase, stages ...stage.Stage) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			if c.Target == (transcript.Target{}) {
				c.Target = anthropicTarget
			}
			got := c.Apply(t, tc.in, stages...)
			stagetest.Equal(t, got.JSON, tc.want)
			if tc.report != nil {
				for what, n := range tc.report {
					if g := got.Report.Stages.Get(stages[0].Name, what); g != n {
						t.Errorf("report %s.%s = %d, want %d (all: %v)", stages[0].Name, what, g, n, got.Report.Stages)
					}
				}
			}
			again := c.Apply(t, string(got.JSON), stages...)
			if string(again.JSON) != string(got.JSON) {
				t.Errorf("second run changed the output:\n first: %s\nsecond: %s", got.JSON, again.JSON)
			}
		})
	}
}

// fuzzStage seeds a fuzz target with inputs and checks the stage properties
// under each of the targets.
func fuzzStage(f *testing.F, seeds []string, st stage.Stage) {
	for _, s := range seeds {
		f.Add([]byte(s), uint8(0))
	}
	targets := []transcript.Target{anthropicTarget, googleTarget, bedrockTarget, copilotTarget, vllmTarget, openaiTarget}
	f.Fuzz(func(t *testing.T, in []byte, pick uint8) {
		stagetest.Case{Target: targets[int(pick)%len(targets)]}.CheckProperties(t, in, st)
	})
}

package pipeline

import (
	"slices"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// The job options the rules honour reach them through the settings only
// (no rule reads t.Options).
func TestRuleOptionsReachSettings(t *testing.T) {
	job := strings.Replace(processJob, `"now_ms":5`, `"now_ms":5,"allowed_tool_names":["read"],"replay_invalid":true,"preserve_latest_assistant_thinking":false`, 1)
	tr, err := transcript.DecodeJob([]byte(job), transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := mustResolve(t, config.Default(), tr).Request
	if !slices.Equal(s.AllowedToolNames, []string{"read"}) || !s.ReplayInvalid ||
		s.PreserveLatestAssistantThinking == nil || *s.PreserveLatestAssistantThinking {
		t.Fatalf("settings %+v", s)
	}
	plain, err := transcript.DecodeJob([]byte(processJob), transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if s := mustResolve(t, config.Default(), plain).Request; s.AllowedToolNames != nil || s.ReplayInvalid || s.PreserveLatestAssistantThinking != nil {
		t.Fatalf("defaults %+v", s)
	}
}

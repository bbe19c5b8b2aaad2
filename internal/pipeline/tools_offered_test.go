package pipeline

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

func TestToolsOfferedOption(t *testing.T) {
	for _, tc := range []struct {
		option  string
		noTools bool
	}{{"", false}, {`,"tools_offered":true`, false}, {`,"tools_offered":false`, true}} {
		tr, err := transcript.DecodeJob([]byte(strings.Replace(processJob, `"now_ms":5`, `"now_ms":5`+tc.option, 1)), transcript.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if got := mustResolve(t, config.Default(), tr).Request.NoToolsOffered(); got != tc.noTools {
			t.Errorf("options %q: NoToolsOffered %v, want %v", tc.option, got, tc.noTools)
		}
	}
}

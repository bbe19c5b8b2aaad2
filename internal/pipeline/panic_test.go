package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// TestPanicAnywhereIsInternalError: a panic outside the stages (the job's
// settings, the render) is an internal_error outcome naming where it
// happened, never a crash and never a bad-input code (issue 20: only the
// stages recovered; `worker sanitize` and `worker replay`, which call
// Sanitize (then Run) without the runner's recovery, died).
func TestPanicAnywhereIsInternalError(t *testing.T) {
	cfg := config.Default()
	job := strings.Replace(processJob, `"options":{"now_ms":5}`, `"options":{"now_ms":5,"render":"request","next":[{"role":"user","content":"and then?","timestamp":6}]}`, 1)
	for _, tc := range []struct {
		name    string
		resolve Resolver
		observe func(string) func(time.Duration)
		stage   string
	}{
		{name: "settings", stage: StageDecode,
			resolve: func(*transcript.Transcript) (stage.Settings, error) { panic("index out of range [3] with length 3") }},
		{name: "render", stage: StageRender, resolve: ResolverFor(cfg),
			observe: func(s string) func(time.Duration) {
				return func(time.Duration) {
					if s == StageRender {
						panic("render: nil map")
					}
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProcessor(cfg.Limits, tc.resolve, Deps{Observe: tc.observe})
			out, err := p.Process(context.Background(), transport.Record{Value: []byte(job)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Ready || out.Code != deadletter.CodeInternalError || out.Stage != tc.stage || !strings.Contains(out.Error, "panicked") {
				t.Fatalf("outcome %+v, want internal_error at %s", out, tc.stage)
			}
			if out.JobID != "j1" || out.Tenant != "acme" {
				t.Errorf("the dead letter lost the job's names: %q %q", out.JobID, out.Tenant)
			}
		})
	}
}

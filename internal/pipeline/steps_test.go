package pipeline

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// TestJobStepsAreTheWholeJob: the step list is decode, parse_request, the
// preparation (named decode), every rule in Deps.Stages' order, render,
// encode; Sanitize starts at the step after the decode.
func TestJobStepsAreTheWholeJob(t *testing.T) {
	second := stage.Stage{Name: "second", Apply: func(context.Context, *transcript.Transcript, *stage.Env) error { return nil }}
	p := NewProcessor(config.Default().Limits, ResolverFor(config.Default()), Deps{Stages: []stage.Stage{tagUsers, second}})
	var names []string
	for _, s := range p.steps {
		names = append(names, s.Name)
	}
	want := []string{StageDecode, StageParse, StageDecode, "tag_users", "second", StageRender, StageEncode}
	if !slices.Equal(names, want) {
		t.Fatalf("steps %v, want %v", names, want)
	}
	if p.steps[decoded].Name != StageParse {
		t.Fatalf("Sanitize starts at %q, want the step after the decode", p.steps[decoded].Name)
	}
}

// TestSanitizeIsProcessAfterTheDecode: Sanitize over the decoded job gives
// Process's outcome byte for byte, ready or refused at any step after the
// decode, with the job's names.
func TestSanitizeIsProcessAfterTheDecode(t *testing.T) {
	refuse := stage.Stage{Name: "refuse", Apply: func(context.Context, *transcript.Transcript, *stage.Env) error {
		return &stage.Reject{Code: deadletter.CodeUnsendable, Msg: "messages[1]: refused"}
	}}
	body := `{"job_id":"j1","tenant":"acme","session_id":"s1","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},` +
		`"request_format":"openai-chat","request":{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}}`
	for _, tc := range []struct {
		name   string
		job    string
		stages []stage.Stage
		stage  string // "" when ready
	}{
		{name: "ready", job: processJob, stages: []stage.Stage{tagUsers}},
		{name: "request body", job: strings.Replace(body, `,{"role":"assistant","content":"yo"}`, "", 1), stages: []stage.Stage{tagUsers}},
		// Claude 4.6 takes no prefill: a body that ends with the assistant's turn
		{name: "unsendable body", job: body, stages: []stage.Stage{tagUsers}, stage: StageRender},
		{name: "bad request format", job: strings.Replace(body, `"openai-chat"`, `"openai-chats"`, 1), stage: StageParse},
		{name: "bad option", job: strings.Replace(processJob, `"now_ms":5`, `"now_ms":5,"render":"html"`, 1), stage: StageDecode},
		{name: "rule refuses", job: processJob, stages: []stage.Stage{tagUsers, refuse}, stage: "refuse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProcessor(config.Default().Limits, ResolverFor(config.Default()), Deps{Stages: tc.stages})
			want, err := p.Process(context.Background(), transport.Record{Value: []byte(tc.job)})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := p.DecodeJob([]byte(tc.job))
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Sanitize(context.Background(), tr)
			if err != nil {
				t.Fatal(err)
			}
			if got.Ready != (tc.stage == "") || got.Stage != tc.stage || got.JobID != "j1" || got.Tenant != "acme" {
				t.Fatalf("outcome %+v, want stage %q", got, tc.stage)
			}
			if !bytes.Equal(got.Payload, want.Payload) || got.Code != want.Code || got.Error != want.Error || got.Stage != want.Stage || (got.Report == nil) != (want.Report == nil) {
				t.Fatalf("Sanitize %+v\nProcess %+v", got, want)
			}
		})
	}
}

// TestContextEndsTheJobBetweenRules: a context that ended is the job's
// error, and no rule runs after it.
func TestContextEndsTheJobBetweenRules(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ran := 0
	count := stage.Stage{Name: "count", Apply: func(context.Context, *transcript.Transcript, *stage.Env) error { ran++; return nil }}
	stop := stage.Stage{Name: "stop", Apply: func(context.Context, *transcript.Transcript, *stage.Env) error { cancel(); return nil }}
	p := NewProcessor(config.Default().Limits, ResolverFor(config.Default()), Deps{Stages: []stage.Stage{count, stop, count}})
	out, err := p.Process(ctx, transport.Record{Value: []byte(processJob)})
	if err != context.Canceled || out.Ready || out.Code != "" || ran != 1 {
		t.Fatalf("outcome %+v, err %v, rules after the stop %d; want the context's error and one count", out, err, ran-1)
	}
}

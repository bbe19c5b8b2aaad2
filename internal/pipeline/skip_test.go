package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// runAll is p's job with every rule run, what each Needs ignored: the
// steps of Process with one after prepare that sets stage.Env.RunAll.
func runAll(p *Processor, value []byte) (Outcome, error) {
	steps := p.jobSteps()
	at := slices.IndexFunc(steps, func(s step) bool { return s.Name != StageDecode && s.Name != StageParse })
	steps = slices.Insert(steps, at, step{"run_all", func(_ context.Context, j *jobState) error {
		j.env.RunAll = true
		return nil
	}})
	j := &jobState{value: value}
	defer func() {
		if j.t != nil {
			j.t.Release()
		}
	}()
	return runSteps(context.Background(), j, steps)
}

// TestSkipKeepsOutcomes is the property of the rule skip: every example job
// (examples/*.json), the realistic generator's jobs for several targets and
// damage mixes, and a request job of every body format and variant
// (sessiongen.Bodies) give the same outcome, payload bytes, report and
// dead letter alike, with the skip on (Process) and off (every rule run).
func TestSkipKeepsOutcomes(t *testing.T) {
	imgs, err := images.NewProcessor(images.Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer imgs.Close()
	cfg := config.Default()
	p := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{Stages: stages.Default(imgs)})
	var jobs [][]byte
	examples, _ := filepath.Glob("../../examples/*.json")
	for _, name := range examples {
		job, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job)
	}
	if len(examples) < 10 {
		t.Fatalf("%d examples found", len(examples))
	}
	for i, tg := range sessiongen.RealAPIs {
		for _, damage := range []sessiongen.Damage{{}, sessiongen.Realistic(), sessiongen.Heavy()} {
			_, job := sessiongen.New(sessiongen.Config{Seed: uint64(i), Messages: 60, ToolCallDensity: 0.5, Damage: damage, Target: tg}).Job(0)
			jobs = append(jobs, job)
		}
	}
	for _, b := range sessiongen.AllBodies(2) {
		src := b.Source.Provider + "/" + b.Source.API + "/" + b.Source.Model
		for _, tg := range []transcript.Target{b.Source, {Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}} {
			target, _ := json.Marshal(tg)
			jobs = append(jobs, []byte(`{"job_id":"b","tenant":"acme","session_id":"s","target":`+string(target)+
				`,"options":{"source":"`+src+`"},"request_format":"`+b.Format+`","request":`+string(b.JSON)+`}`))
		}
	}
	ready := 0
	for i, job := range jobs {
		got, err := p.Process(context.Background(), transport.Record{Value: job})
		if err != nil {
			t.Fatal(err)
		}
		want, err := runAll(p, job)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("job %d: the outcome with the skip differs from every rule run:\n got %+v\nwant %+v\njob %.400s", i, got, want, job)
		}
		if got.Ready {
			ready++
		}
	}
	if ready < len(jobs)/2 {
		t.Fatalf("only %d of %d jobs came back ready: the property checks mostly refusals", ready, len(jobs))
	}
}

// TestRuleStepsSkipWhatTheJobLacks: a rule that declares Needs the job's
// messages lack, or whose guard (On) is off for the job, is not called,
// nor timed; one that declares none, or whose Needs the job holds and
// guard is on, is.
func TestRuleStepsSkipWhatTheJobLacks(t *testing.T) {
	called := map[string]int{}
	rule := func(name string, needs transcript.Facts) stage.Stage {
		return stage.Stage{Name: name, Needs: needs, Apply: func(context.Context, *transcript.Transcript, *stage.Env) error {
			called[name]++
			return nil
		}}
	}
	off, on := rule("off", 0), rule("on", transcript.FactUser)
	off.On = func(env *stage.Env) bool { return env.Policy.IsResponsesAPI() }
	on.On = func(env *stage.Env) bool { return env.Policy.IsAnthropicFamily() }
	observed := map[string]int{}
	cfg := config.Default()
	p := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{
		Stages: []stage.Stage{rule("always", 0), rule("images", transcript.FactImage), rule("text", transcript.FactText|transcript.FactImage),
			off, on},
		Observe: func(name string) func(time.Duration) { return func(time.Duration) { observed[name]++ } },
	})
	out, err := p.Process(context.Background(), transport.Record{Value: []byte(processJob)})
	if err != nil || !out.Ready {
		t.Fatalf("%+v %v", out, err)
	}
	if want := map[string]int{"always": 1, "text": 1, "on": 1}; !reflect.DeepEqual(called, want) || observed["images"] != 0 || observed["off"] != 0 || observed["text"] != 1 {
		t.Fatalf("called %v (want %v), observed %v", called, want, observed)
	}
}

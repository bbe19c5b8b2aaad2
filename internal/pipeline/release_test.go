package pipeline

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// TestProcessReleasesTapesSafely: Process gives every job's tapes back to
// the pool once its payload is built, and jobs on four goroutines (each
// decoding onto arrays another job released, its decode and encode split
// across a fanout) give exactly the outcomes of decoding and running each
// job with nothing released. An outcome that kept a view of its tapes, or
// a part of a job still reading them after the release, would read
// another job's entries: the outcome would differ, or the race detector
// report the read against the next decode's writes.
func TestProcessReleasesTapesSafely(t *testing.T) {
	cfg := config.Default()
	deps := Deps{Stages: []stage.Stage{tagUsers, tagFirstBlocks}, Fanout: fanout.New(3, 1).WithMinBytes(1)}
	p := NewProcessor(cfg.Limits, ResolverFor(cfg), deps)
	tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	var jobs [][]byte
	var want []Outcome
	for seed := range uint64(12) {
		_, job := sessiongen.New(sessiongen.Config{Seed: seed, Messages: 20 + int(seed)*15, ToolCallDensity: 0.5,
			Damage: sessiongen.Heavy(), Target: tg}).Job(0)
		tr, err := p.DecodeJob(job)
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Sanitize(context.Background(), tr) // never released
		if err != nil || !out.Ready {
			t.Fatalf("seed %d: %v %+v", seed, err, out)
		}
		jobs, want = append(jobs, job), append(want, out)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 3 {
				for k := range jobs {
					i := (k + g*5 + round) % len(jobs)
					got, err := p.Process(context.Background(), transport.Record{Value: jobs[i]})
					if err != nil {
						t.Error(err)
						return
					}
					if !reflect.DeepEqual(got, want[i]) {
						t.Errorf("job %d: the outcome differs from the one decoded without release", i)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

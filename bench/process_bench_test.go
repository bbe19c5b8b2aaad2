package main

import (
	"context"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// BenchmarkProcessSmallJob is one small job's whole cost in the processor
// (decode, every rule, encode), the per-job CPU and allocation that bounds
// the end-to-end suite's small jobs (10 messages, about 12 KB, realistic
// damage, no images): 1,000 generated jobs in turn.
func BenchmarkProcessSmallJob(b *testing.B) {
	images.Startup()
	imgs, err := images.NewProcessor(images.Config{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer imgs.Close()
	g := sessiongen.New(sessiongen.Config{Seed: 1, Messages: 10, Damage: sessiongen.Realistic(), Tenants: benchTenants, Sessions: benchSessions})
	jobs := make([][]byte, 1000)
	for i := range jobs {
		_, jobs[i] = g.Job(i)
	}
	cfg := config.Default()
	proc := pipeline.NewProcessor(cfg.Limits, pipeline.ResolverFor(cfg), pipeline.Deps{Stages: stages.Default(imgs)})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out, err := proc.Process(context.Background(), transport.Record{Value: jobs[i%len(jobs)], Topic: "bench", Offset: int64(i)})
		if err != nil || !out.Ready {
			b.Fatalf("job %d: %v %s", i%len(jobs), err, out.Error)
		}
	}
}

package main

import (
	"context"
	"io"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// BenchmarkProcessSmallJob is one small job's whole cost in the processor
// (decode, every rule, encode), the per-job CPU and allocation that bounds
// the end-to-end suite's small jobs (10 messages, about 12 KB, realistic
// damage, no images): 1,000 generated jobs in turn. Each payload's buffer
// goes back for the jobs that follow once the job is done, as the worker's
// runner gives it back once its sink has copied it
// (pipeline.RecyclePayload).
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
		pipeline.RecyclePayload(out)
	}
}

// BenchmarkProcessE2EJob is the end-to-end suite's job as the worker runs
// it: the jobs `--suite e2e --images 0 --messages 10 --key-skew 1`
// produces (generatorConfig: tool calls in 60 % of the assistant turns,
// which BenchmarkProcessSmallJob's jobs have none of, about twice its
// instructions), 1,000 in turn, with the worker's stage observer
// (metrics.StageObserver), each payload's buffer given back as in
// BenchmarkProcessSmallJob. Its time and allocations per job are the
// processor's part of the e2e suite's worker CPU per job.
func BenchmarkProcessE2EJob(b *testing.B) {
	o, err := parseOptions([]string{"--suite", "e2e", "--images", "0", "--messages", "10", "--key-skew", "1", "--jobs", "1000"}, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	jobs := generateJobs(o)
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	cfg := config.Default()
	proc := pipeline.NewProcessor(cfg.Limits, pipeline.ResolverFor(cfg), pipeline.Deps{Stages: stages.Default(nil), Observe: m.StageObserver})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := i % len(jobs.values)
		out, err := proc.Process(context.Background(), transport.Record{Key: jobs.keys[k], Value: jobs.values[k], Topic: "bench", Offset: int64(i)})
		if err != nil || !out.Ready {
			b.Fatalf("job %d: %v %s", k, err, out.Error)
		}
		pipeline.RecyclePayload(out)
	}
}

// BenchmarkProcessLarge is the large suite's 100,000-message history in
// the processor on one goroutine (no fanout): the damaged job, and the
// clean one (the worker's own payload fed back, nothing to repair). It is
// `worker sanitize`'s work without the process, the file and the pipe, so
// a CPU or allocation profile of it names what bounds the large suite
// (issue 22). The setup (generating the history, and for clean one damaged
// run) is outside the timed loop but inside a profile: take it with
// -benchtime 10x or more.
func BenchmarkProcessLarge(b *testing.B) {
	o, err := parseOptions(nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	cfg := config.Default()
	cfg.Limits.MaxJobBytes, cfg.Limits.MaxCompressedBytes, cfg.Limits.MaxMessages = 1<<31, 1<<31, 300_000
	proc := pipeline.NewProcessor(cfg.Limits, pipeline.ResolverFor(cfg), pipeline.Deps{Stages: stages.Default(nil)})
	damaged := largeDamaged(o, 100_000)
	for _, shape := range []string{"damaged", "clean"} {
		b.Run(shape, func(b *testing.B) {
			job := damaged
			if shape == "clean" {
				out, err := proc.Process(context.Background(), transport.Record{Value: damaged})
				if err != nil || !out.Ready {
					b.Fatalf("the damaged job: %v %s", err, out.Error)
				}
				opts, err := jobOptions(damaged)
				if err != nil {
					b.Fatal(err)
				}
				if job, _, err = cleanJob(out.Payload, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(job)))
			b.ReportAllocs()
			for b.Loop() {
				out, err := proc.Process(context.Background(), transport.Record{Value: job})
				if err != nil || !out.Ready {
					b.Fatalf("%v %s", err, out.Error)
				}
			}
		})
	}
}

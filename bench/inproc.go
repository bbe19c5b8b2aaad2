package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// inprocRun is one in-process measurement: goroutines calling
// Processor.Process over the generated jobs.
type inprocRun struct {
	Concurrency int          `json:"concurrency"`
	ImagePool   int          `json:"image_pool"`
	Jobs        int          `json:"jobs"`
	DeadLetters int          `json:"dead_letters"`
	Seconds     float64      `json:"seconds"`
	JobsPerSec  float64      `json:"jobs_per_sec"`
	MBPerSec    float64      `json:"mb_per_sec"`
	CPUMsPerJob float64      `json:"cpu_ms_per_job"`
	Stages      []stageShare `json:"stages"`
	// ImagesResized and ImagesKept count the image blocks libvips resized
	// and the ones kept as they were (the rest were omitted or replaced by
	// earlier rules, such as stale-image cleanup, before the images stage).
	ImagesResized int64 `json:"images_resized"`
	ImagesKept    int64 `json:"images_kept"`
	CappedByTime  bool  `json:"capped_by_time"`
}

// stageShare is one stage's part of the processing time. "decode+encode"
// is the rest of Process: decompression, decoding, encoding the payload.
type stageShare struct {
	Stage    string  `json:"stage"`
	Share    float64 `json:"share"`
	MsPerJob float64 `json:"ms_per_job"`
}

// inprocSuite sweeps concurrency and image pool size (up to the cores).
func inprocSuite(ctx context.Context, o options, jobs *jobSet, log io.Writer) ([]inprocRun, error) {
	var pools []int
	for _, p := range o.pools {
		if p = min(p, runtime.NumCPU()); !slices.Contains(pools, p) {
			pools = append(pools, p)
		}
	}
	var out []inprocRun
	for _, pool := range pools {
		for _, c := range o.conc {
			r, err := inprocOnce(ctx, o, jobs, c, pool)
			if err != nil {
				return out, err
			}
			fmt.Fprintf(log, "  in process: concurrency %d, image pool %d: %d jobs in %.1fs, %.1f jobs/s, %.1f MB/s\n",
				c, pool, r.Jobs, r.Seconds, r.JobsPerSec, r.MBPerSec)
			out = append(out, r)
		}
	}
	return out, nil
}

// stageClock sums the time of each stage over many jobs.
type stageClock struct {
	mu sync.Mutex
	d  map[string]time.Duration
}

// observe is the processor's observer (pipeline.Deps.Observe): the
// function that adds a duration to stage's sum.
func (c *stageClock) observe(stage string) func(time.Duration) {
	return func(d time.Duration) {
		c.mu.Lock()
		c.d[stage] += d
		c.mu.Unlock()
	}
}

// inprocOnce runs the jobs through one Processor with c goroutines until
// all are done or o.duration passes.
func inprocOnce(ctx context.Context, o options, jobs *jobSet, c, imagePool int) (inprocRun, error) {
	images.Startup()
	imgs, err := images.NewProcessor(images.Config{Workers: imagePool})
	if err != nil {
		return inprocRun{}, fmt.Errorf("starting the image pool: %w", err)
	}
	defer imgs.Close()
	clock := &stageClock{d: map[string]time.Duration{}}
	proc := pipeline.NewProcessor(config.Default().Limits, pipeline.ResolverFor(config.Default()), pipeline.Deps{Stages: stages.Default(imgs), Observe: clock.observe})
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()

	var next, done, dead, inBytes atomic.Int64
	var busy atomic.Int64 // summed Process wall time, nanoseconds
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	cpu0, start := selfCPU(), time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(jobs.values) {
					return
				}
				t0 := time.Now()
				out, err := proc.Process(ctx, transport.Record{Key: jobs.keys[i], Value: jobs.values[i], Topic: "bench", Offset: int64(i)})
				if err != nil {
					return // the time cap
				}
				busy.Add(int64(time.Since(t0)))
				done.Add(1)
				inBytes.Add(int64(len(jobs.values[i])))
				if !out.Ready {
					dead.Add(1)
					errOnce.Do(func() { firstErr = fmt.Errorf("job %d was dead-lettered (%s): %s", i, out.Code, out.Error) })
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := selfCPU() - cpu0
	if firstErr != nil {
		return inprocRun{}, firstErr
	}
	n := done.Load()
	r := inprocRun{
		Concurrency: c, ImagePool: imagePool, Jobs: int(n), DeadLetters: int(dead.Load()), Seconds: elapsed.Seconds(),
		JobsPerSec: float64(n) / elapsed.Seconds(), MBPerSec: float64(inBytes.Load()) / 1e6 / elapsed.Seconds(),
		CPUMsPerJob: ms(cpu) / float64(max(n, 1)), CappedByTime: int(n) < len(jobs.values),
	}
	r.Stages = shares(clock.d, time.Duration(busy.Load()), n)
	st := imgs.Stats()
	r.ImagesResized, r.ImagesKept = st.Resized, st.Unchanged
	return r, nil
}

// shares turns summed stage times into shares of the total Process time,
// largest first; the time outside the stages is "decode+encode".
func shares(d map[string]time.Duration, total time.Duration, jobs int64) []stageShare {
	var staged time.Duration
	for _, v := range d {
		staged += v
	}
	all := map[string]time.Duration{"decode+encode": max(total-staged, 0)}
	for k, v := range d {
		all[k] = v
	}
	var out []stageShare
	for k, v := range all {
		out = append(out, stageShare{Stage: k, Share: float64(v) / float64(max(total, 1)), MsPerJob: ms(v) / float64(max(jobs, 1))})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Share > out[j].Share || out[i].Share == out[j].Share && out[i].Stage < out[j].Stage
	})
	return out
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

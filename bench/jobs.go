package main

import (
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
)

// The key mix of the load runs: a few tenants, many sessions (the skew
// over them is --key-skew).
const (
	benchTenants  = 8
	benchSessions = 500
)

// jobSet is the generated jobs of the load runs, made once per bench run so
// every run (in process, end to end, the ceiling) sees the same bytes.
type jobSet struct {
	keys   [][]byte
	values [][]byte
	bytes  int64
}

// generatorConfig is the sessiongen configuration of the load runs.
func generatorConfig(o options) sessiongen.Config {
	return sessiongen.Config{
		Seed: o.seed, Messages: o.messages, ToolCallDensity: 0.6, Images: o.images,
		ImageWidth: o.imageW, ImageHeight: o.imageH, Damage: sessiongen.Realistic(),
		Tenants: benchTenants, Sessions: benchSessions, KeySkew: o.keySkew, ToolOutput: o.toolOutput,
	}
}

// generateJobs makes o.jobs jobs from the seeded generator.
func generateJobs(o options) *jobSet {
	g := sessiongen.New(generatorConfig(o))
	s := &jobSet{}
	for i := range o.jobs {
		k, v := g.Job(i)
		s.keys = append(s.keys, []byte(k))
		s.values = append(s.values, v)
		s.bytes += int64(len(v))
	}
	return s
}

// workload describes the set for the results.
func (s *jobSet) workload(o options) workload {
	return workload{
		Seed: o.seed, Jobs: len(s.values), Messages: o.messages, Images: o.images,
		ImageSize: fmt.Sprintf("%dx%d", o.imageW, o.imageH), Damage: "sessiongen.Realistic",
		Tenants: benchTenants, Sessions: benchSessions, KeySkew: o.keySkew, ToolOutput: o.toolOutput,
		AvgJobBytes: int(s.bytes / int64(max(len(s.values), 1))), DurationCap: o.duration.String(),
		HotKeyShare: s.hotKeyShare(),
	}
}

// hotKeyShare is the fraction of the jobs that carry the most frequent key:
// the worker runs one key's jobs one after another.
func (s *jobSet) hotKeyShare() float64 {
	counts := map[string]int{}
	top := 0
	for _, k := range s.keys {
		counts[string(k)]++
		top = max(top, counts[string(k)])
	}
	return float64(top) / float64(max(len(s.keys), 1))
}

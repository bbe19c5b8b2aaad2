package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// results is everything one run measured; it is written as <name>.json.
type results struct {
	Command   string           `json:"command"`
	Started   time.Time        `json:"started"`
	Seconds   float64          `json:"seconds"`
	Machine   machine          `json:"machine"`
	Workload  workload         `json:"workload"`
	InProcess []inprocRun      `json:"in_process,omitempty"`
	Codec     []codecRun       `json:"codec,omitempty"`
	Images    []imageRun       `json:"images,omitempty"`
	Pairing   []pairingRun     `json:"pairing,omitempty"`
	Large     []largeRun       `json:"large,omitempty"`
	EndToEnd  []e2eRun         `json:"end_to_end,omitempty"`
	Ratios    map[string]ratio `json:"ratios,omitempty"`
}

// workload is the generator's knobs shared by the load runs.
type workload struct {
	Seed        uint64  `json:"seed"`
	Jobs        int     `json:"jobs"`
	Messages    int     `json:"messages_per_history"`
	Images      int     `json:"images_per_history"`
	ImageSize   string  `json:"image_size"`
	Damage      string  `json:"damage"`
	Tenants     int     `json:"tenants"`
	Sessions    int     `json:"sessions"`
	KeySkew     float64 `json:"key_skew"`
	ToolOutput  float64 `json:"tool_output"` // share of tool results holding tool output, not prose
	AvgJobBytes int     `json:"avg_job_bytes"`
	HotKeyShare float64 `json:"hot_key_share"`
	DurationCap string  `json:"duration_cap"`
}

// ratio is one headline comparison: A over B, and what it means.
type ratio struct {
	Value float64 `json:"value"`
	Means string  `json:"means"`
}

// runSuites runs the chosen suites in order. A failing suite stops the run;
// what was measured before is still returned.
func runSuites(ctx context.Context, o options, log io.Writer) (*results, error) {
	res := &results{Command: o.command, Started: time.Now().UTC(), Machine: describeMachine()}
	begin := time.Now()
	defer func() { res.Seconds = time.Since(begin).Seconds() }()
	fmt.Fprintf(log, "bench: %s on %d cores (%s), load %s\n", o.command, res.Machine.Cores, res.Machine.CPU, res.Machine.LoadBefore)
	var jobs *jobSet
	if o.has("inproc") || o.has("e2e") {
		jobs = generateJobs(o)
		res.Workload = jobs.workload(o)
		fmt.Fprintf(log, "bench: generated %d jobs, %d bytes on average\n", len(jobs.values), res.Workload.AvgJobBytes)
	}
	steps := []struct {
		suite string
		run   func() error
	}{
		{"inproc", func() (err error) { res.InProcess, err = inprocSuite(ctx, o, jobs, log); return }},
		{"codec", func() (err error) { res.Codec, err = codecSuite(ctx, o, log); return }},
		{"images", func() (err error) { res.Images, err = imageSuite(ctx, o, log); return }},
		{"pairing", func() (err error) { res.Pairing, err = pairingSuite(ctx, o, log); return }},
		{"large", func() (err error) { res.Large, err = largeSuite(ctx, o, log); return }},
		{"e2e", func() (err error) { res.EndToEnd, err = e2eSuite(ctx, o, jobs, log); return }},
	}
	for _, s := range steps {
		if !o.has(s.suite) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		fmt.Fprintf(log, "bench: suite %s\n", s.suite)
		if err := s.run(); err != nil {
			return res, fmt.Errorf("suite %s: %w", s.suite, err)
		}
	}
	res.Machine.LoadAfter = loadAverage()
	res.Ratios = computeRatios(res)
	return res, nil
}

// writeResults writes <out>/<name>.json, the plots and <out>/<name>.md
// (the tables, each row with its command), and prints the tables.
func writeResults(o options, res *results, log io.Writer) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("making the results directory %s: %w", o.out, err)
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the results: %w", err)
	}
	path := filepath.Join(o.out, o.name+".json")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	plots, err := drawPlots(o, res)
	if err != nil {
		return err
	}
	var table strings.Builder
	printTable(&table, res, o)
	tablePath := filepath.Join(o.out, o.name+".md")
	if err := os.WriteFile(tablePath, []byte(table.String()), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", tablePath, err)
	}
	fmt.Fprintf(log, "bench: wrote %s, %s and %v\n\n%s", path, tablePath, plots, table.String())
	return nil
}

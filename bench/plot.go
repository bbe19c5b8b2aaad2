package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// drawPlots writes <name>-throughput.png (jobs/s against concurrency) and
// <name>-latency-cdf.png (end-to-end latency CDF) and returns their paths.
func drawPlots(o options, res *results) ([]string, error) {
	var paths []string
	if len(res.InProcess) > 0 || len(res.EndToEnd) > 0 {
		p := filepath.Join(o.out, o.name+"-throughput.png")
		if err := throughputPlot(res, p); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	if len(res.EndToEnd) > 0 {
		p := filepath.Join(o.out, o.name+"-latency-cdf.png")
		if err := latencyPlot(res, p); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// throughputPlot draws jobs/s against concurrency: in process per image
// pool, end to end for the real pipeline and the no-op ceiling.
func throughputPlot(res *results, path string) error {
	p := plot.New()
	p.Title.Text = "Throughput against concurrency"
	p.X.Label.Text = "concurrency (in process: goroutines; end to end: worker pool)"
	p.Y.Label.Text = "jobs/s (log scale)"
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{1, 2, 5}
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{1, 2, 4, 8}
	var lines []any
	var pools []int
	for _, r := range res.InProcess {
		if !slices.Contains(pools, r.ImagePool) {
			pools = append(pools, r.ImagePool)
		}
	}
	for _, pool := range pools {
		var xy plotter.XYs
		for _, r := range res.InProcess {
			if r.ImagePool == pool && r.JobsPerSec > 0 {
				xy = append(xy, plotter.XY{X: float64(r.Concurrency), Y: r.JobsPerSec})
			}
		}
		lines = append(lines, fmt.Sprintf("in process, image pool %d", pool), xy)
	}
	for _, kind := range []string{"real", "noop"} {
		var xy plotter.XYs
		for _, r := range res.EndToEnd {
			if r.Pipeline == kind && r.JobsPerSec > 0 {
				xy = append(xy, plotter.XY{X: float64(r.Pool), Y: r.JobsPerSec})
			}
		}
		name := "end to end, pipeline"
		if kind == "noop" {
			name = "end to end, no-op ceiling"
		}
		lines = append(lines, name, xy)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return fmt.Errorf("drawing the throughput plot: %w", err)
	}
	p.Legend.Top = true
	p.Y.Max *= 4 // room for the legend above the lines
	return save(p, path)
}

// latencyPlot draws the CDF of produce-to-ready latency of every
// end-to-end run.
func latencyPlot(res *results, path string) error {
	p := plot.New()
	p.Title.Text = "End-to-end latency, produce to ready record"
	p.X.Label.Text = "latency ms (log scale)"
	p.Y.Label.Text = "fraction of jobs"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{1, 2, 5}
	var lines []any
	for _, r := range res.EndToEnd {
		var xy plotter.XYs
		for pct, v := range r.CDF {
			xy = append(xy, plotter.XY{X: max(v, 0.1), Y: float64(pct) / 100})
		}
		if len(xy) > 0 {
			lines = append(lines, fmt.Sprintf("%s, pool %d", r.Pipeline, r.Pool), xy)
		}
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return fmt.Errorf("drawing the latency plot: %w", err)
	}
	p.Legend.Left, p.Legend.Top = false, false
	return save(p, path)
}

// save writes p as a 9 x 5.5 inch PNG.
func save(p *plot.Plot, path string) error {
	if err := p.Save(9*vg.Inch, 5.5*vg.Inch, path); err != nil {
		return fmt.Errorf("writing the plot %s: %w", path, err)
	}
	return nil
}

// logTicks labels a log axis at these multiples of every power of ten in
// range ({1, 2, 5} gives 1, 2, 5, 10, 20, 50, ...), with minor ticks at
// the other integers of each decade; a range narrower than a decade gets
// every integer multiple labelled.
type logTicks []float64

// Ticks implements plot.Ticker.
func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for exp := math.Floor(math.Log10(lo)); math.Pow(10, exp) <= hi; exp++ {
		dec := math.Pow(10, exp)
		for m := 1.0; m < 10; m++ {
			v := m * dec
			if v < lo || v > hi {
				continue
			}
			tick := plot.Tick{Value: v}
			if slices.Contains(t, m) || hi/lo < 10 {
				tick.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			out = append(out, tick)
		}
	}
	return out
}

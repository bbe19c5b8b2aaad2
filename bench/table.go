package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// printTable prints the figures as Markdown tables.
func printTable(w io.Writer, res *results, o options) {
	m := res.Machine
	fmt.Fprintf(w, "Machine: %d cores, %s, %d GB, %s, %s, worker built with GOEXPERIMENT=%s; load %s before, %s after. Run: `%s`, %.0f s.\n\n",
		m.Cores, m.CPU, m.MemoryGB, m.OS, m.Go, m.Experiment, m.LoadBefore, m.LoadAfter, res.Command, res.Seconds)
	if wl := res.Workload; wl.Jobs > 0 {
		fmt.Fprintf(w, "Workload: %d jobs (seed %d), %d messages and %d %s image(s) per history, %s damage, %d tenants, %d sessions, Zipf skew %.1f (the hottest key holds %.0f%% of the jobs), %d bytes per job on average; each load run capped at %s.\n\n",
			wl.Jobs, wl.Seed, wl.Messages, wl.Images, wl.ImageSize, wl.Damage, wl.Tenants, wl.Sessions, wl.KeySkew, 100*wl.HotKeyShare, wl.AvgJobBytes, wl.DurationCap)
	}
	if len(res.InProcess) > 0 {
		fmt.Fprintln(w, "| in process | jobs | jobs/s | MB/s | CPU ms/job | top stages (share of Process time) | command |\n| --- | --- | --- | --- | --- | --- | --- |")
		for _, r := range res.InProcess {
			cmd := o.rowCommand("--suite", "inproc", "--concurrency", itoa(r.Concurrency), "--pools", itoa(r.ImagePool))
			fmt.Fprintf(w, "| concurrency %d, image pool %d | %d | %.1f | %.2f | %.1f | %s | `%s` |\n", r.Concurrency, r.ImagePool, r.Jobs, r.JobsPerSec, r.MBPerSec, r.CPUMsPerJob, topStages(r.Stages, 4), cmd)
		}
		fmt.Fprintln(w)
	}
	if len(res.EndToEnd) > 0 {
		fmt.Fprintln(w, "| end to end | done/jobs | jobs/s | MB/s | p50 / p95 / p99 ms | worker CPU ms/job | worker peak RSS MB | command |\n| --- | --- | --- | --- | --- | --- | --- | --- |")
		for _, r := range res.EndToEnd {
			cmd := o.rowCommand("--suite", "e2e", "--pools", itoa(r.Pool))
			fmt.Fprintf(w, "| %s, pool %d, %s | %d/%d | %.1f | %.2f | %.0f / %.0f / %.0f | %.1f | %.0f | `%s` |\n", r.Pipeline, r.Pool, r.Broker, r.Done, r.Jobs, r.JobsPerSec, r.MBPerSec, r.P50Ms, r.P95Ms, r.P99Ms, r.CPUMsPerJob, r.PeakRSSMB, cmd)
		}
		fmt.Fprintln(w)
	}
	if len(res.Codec) > 0 {
		fmt.Fprintln(w, "| codec | job MB | ms/op | CPU ms/op | MB/s | alloc MB/op | command |\n| --- | --- | --- | --- | --- | --- | --- |")
		for _, r := range res.Codec {
			fmt.Fprintf(w, "| %s | %.1f | %.1f | %.1f | %.0f | %.1f | `%s` |\n", r.Codec, float64(r.JobBytes)/1e6, r.MsPerOp, r.CPUMsPerOp, r.MBPerSec, r.AllocMBPerOp, o.rowCommand("--suite", "codec"))
		}
		fmt.Fprintln(w)
	}
	if len(res.Images) > 0 {
		fmt.Fprintln(w, "| images (the mix, one at a time) | images | images/s | CPU ms/image | out bytes per mix | command |\n| --- | --- | --- | --- | --- | --- |")
		for _, r := range res.Images {
			fmt.Fprintf(w, "| %s | %d | %.2f | %.0f | %d | `%s` |\n", r.Way, r.Images, r.ImagesPerSec, r.CPUMsPerImg, r.OutBytes, o.rowCommand("--suite", "images"))
		}
		fmt.Fprintln(w)
	}
	if len(res.Pairing) > 0 {
		fmt.Fprintln(w, "| pairing | job MB | decode ms (CPU) | pairing ms (CPU) | pairing CPU ns/message | command |\n| --- | --- | --- | --- | --- | --- |")
		for _, r := range res.Pairing {
			fmt.Fprintf(w, "| %d messages | %.0f | %.0f (%.0f) | %.0f (%.0f) | %.0f | `%s` |\n", r.Messages, r.JobMB, r.DecodeMs, r.DecodeCPUMs, r.PairingMs, r.PairingCPUMs, r.PairingCPUNsPerMsg, o.rowCommand("--suite", "pairing", "--pairing", itoa(r.Messages)))
		}
		fmt.Fprintln(w)
	}
	if len(res.Large) > 0 {
		fmt.Fprintln(w, "| large | job MB | way | wall ms | CPU ms | peak RSS MB (x input) | Python over it: wall, CPU; its RSS over Python's | command |\n| --- | --- | --- | --- | --- | --- | --- | --- |")
		for _, r := range res.Large {
			n, what := r.Messages, fmt.Sprintf("%d messages, %s", r.Messages, r.Shape)
			if r.Of > 0 {
				n, what = r.Of, fmt.Sprintf("%s (of %d)", what, r.Of)
			}
			cmd := o.rowCommand("--suite", "large", "--large", itoa(n))
			for _, p := range r.Sanitize {
				fmt.Fprintf(w, "| %s | %.0f | worker sanitize, GOMAXPROCS=%d, median of %d | %.0f | %.0f | %.0f (%.1fx) | %.2fx, %.2fx; %.2fx | `%s` |\n",
					what, r.JobMB, p.Procs, r.Rounds, p.WallMs, p.CPUMs, p.PeakRSSMB, p.PeakRSSOverIn, p.PythonWallOver, p.PythonCPUOver, p.RSSOverPython, cmd)
			}
			fmt.Fprintf(w, "| %s | %.0f | python3 json load+dump (%s), median of %d | %.0f | %.0f | %.0f (%.1fx) | 1 | `%s` |\n",
				what, r.JobMB, r.PythonBuild, r.Rounds, r.Python.WallMs, r.Python.CPUMs, r.Python.PeakRSSMB, r.Python.PeakRSSOverIn, cmd)
			if r.CoresOverOne > 0 {
				fmt.Fprintf(w, "| %s | | sanitize wall at GOMAXPROCS=%d over 1 | %.2f | | | | `%s` |\n", what, r.Sanitize[len(r.Sanitize)-1].Procs, r.CoresOverOne, cmd)
			}
		}
		fmt.Fprintln(w)
	}
	for _, k := range []string{"end_to_end_vs_ceiling", "images_vs_vipsthumbnail", "images_vs_pure_go", "codec_vs_encoding_json", "pairing_per_message_growth"} {
		if r, ok := res.Ratios[k]; ok {
			fmt.Fprintf(w, "- %s: %.3g (%s)\n", k, r.Value, r.Means)
		}
	}
}

// topStages names the first n stages with their shares.
func topStages(s []stageShare, n int) string {
	var top []string
	for _, st := range s[:min(n, len(s))] {
		top = append(top, fmt.Sprintf("%s %.0f%%", st.Stage, 100*st.Share))
	}
	return strings.Join(top, ", ")
}

// itoa formats n for a command line.
func itoa(n int) string { return strconv.Itoa(n) }

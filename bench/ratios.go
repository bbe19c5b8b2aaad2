package main

import (
	"fmt"
	"runtime"
	"strings"
)

// computeRatios derives the headline comparisons from what was measured.
func computeRatios(res *results) map[string]ratio {
	out := map[string]ratio{}
	if real, noop, ok := headlineE2E(res.EndToEnd); ok && noop.JobsPerSec > 0 {
		out["end_to_end_vs_ceiling"] = ratio{real.JobsPerSec / noop.JobsPerSec,
			fmt.Sprintf("jobs/s of the real pipeline over the no-op ceiling, same broker, pool %d", real.Pool)}
	}
	if h, cli, pure := imageWays(res.Images); h != nil {
		if cli != nil {
			out["images_vs_vipsthumbnail"] = ratio{h.ImagesPerSec / cli.ImagesPerSec,
				fmt.Sprintf("images/s in process over the vipsthumbnail CLI (CPU per image %.0f vs %.0f ms)", h.CPUMsPerImg, cli.CPUMsPerImg)}
		}
		if pure != nil {
			out["images_vs_pure_go"] = ratio{h.ImagesPerSec / pure.ImagesPerSec,
				fmt.Sprintf("images/s in process over pure Go (CPU per image %.0f vs %.0f ms)", h.CPUMsPerImg, pure.CPUMsPerImg)}
		}
	}
	if len(res.Codec) == 2 && res.Codec[1].MBPerSec > 0 {
		out["codec_vs_encoding_json"] = ratio{res.Codec[0].MBPerSec / res.Codec[1].MBPerSec,
			fmt.Sprintf("MB/s of package transcript over encoding/json, decode and re-encode of a %.0f MB job", float64(res.Codec[0].JobBytes)/1e6)}
	}
	if n := len(res.Pairing); n > 1 && res.Pairing[0].PairingCPUNsPerMsg > 0 {
		first, last := res.Pairing[0], res.Pairing[n-1]
		out["pairing_per_message_growth"] = ratio{last.PairingCPUNsPerMsg / first.PairingCPUNsPerMsg,
			fmt.Sprintf("pairing CPU time per message at %d messages (%.0f ms CPU in all) over %d messages: 1.0 is linear", last.Messages, last.PairingCPUMs, first.Messages)}
	}
	return out
}

// headlineE2E picks the real and no-op runs at the worker's default pool
// (2 x cores) when swept, else at the largest pool.
func headlineE2E(runs []e2eRun) (real, noop e2eRun, ok bool) {
	want, best := 2*runtime.NumCPU(), 0
	for _, r := range runs {
		if r.Pool == want {
			best = want
			break
		}
		best = max(best, r.Pool)
	}
	var haveReal, haveNoop bool
	for _, r := range runs {
		if r.Pool != best {
			continue
		}
		if r.Pipeline == "real" {
			real, haveReal = r, true
		} else {
			noop, haveNoop = r, true
		}
	}
	return real, noop, haveReal && haveNoop
}

// imageWays returns the three image runs by way.
func imageWays(runs []imageRun) (hygiene, cli, pure *imageRun) {
	for i := range runs {
		switch {
		case strings.HasPrefix(runs[i].Way, "hygiene"):
			hygiene = &runs[i]
		case strings.HasPrefix(runs[i].Way, "vipsthumbnail"):
			cli = &runs[i]
		case strings.HasPrefix(runs[i].Way, "pure Go"):
			pure = &runs[i]
		}
	}
	return
}

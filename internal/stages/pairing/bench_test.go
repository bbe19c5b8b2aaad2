package pairing

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// benchHistory returns a damaged history of exactly n messages (the last
// turn may be cut short).
func benchHistory(b *testing.B, n int) []byte {
	b.Helper()
	g := newHistoryGen(uint64(n))
	for len(g.msgs) < n {
		g.turns(1000)
	}
	return []byte("[" + strings.Join(g.msgs[:n], ",") + "]")
}

// processCPU is the CPU time the process has used (user and system), so a
// benchmark on a shared, busy machine can report its own work apart from
// the wall time it waited for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPairing measures ToolResultPairing over damaged histories of
// 100k and 1M messages. "warm" has every message already parsed, as it is
// after the earlier stages of the chain; "cold" includes the lazy parse of
// every message the rule reads. Besides ns/op (wall time) it reports
// cpu-ns/op, the process CPU time of the timed part (GC included).
func BenchmarkPairing(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		data := benchHistory(b, n)
		for _, warm := range []bool{true, false} {
			name := strconv.Itoa(n/1000) + "k/cold"
			if warm {
				name = strconv.Itoa(n/1000) + "k/warm"
			}
			b.Run(name, func(b *testing.B) { benchPairingRun(b, data, warm, nil) })
		}
	}
}

// BenchmarkPairingFanout is BenchmarkPairing (cold: the lazy parse is
// part of the rule's work) sequentially and split across a fanout of
// GOMAXPROCS-1 helpers plus the caller, as the worker wires it.
func BenchmarkPairingFanout(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		data := benchHistory(b, n)
		for _, mode := range []string{"seq", "chunked"} {
			var fan stage.Fanout
			if mode == "chunked" {
				fan = fanout.New(runtime.GOMAXPROCS(0)-1, 1)
			}
			b.Run(strconv.Itoa(n/1000)+"k/"+mode, func(b *testing.B) { benchPairingRun(b, data, false, fan) })
		}
	}
}

// benchPairingRun times ToolResultPairing over a fresh decode of data per
// iteration, warm or cold (see BenchmarkPairing), with the job's fanout.
func benchPairingRun(b *testing.B, data []byte, warm bool, fan stage.Fanout) {
	n := 0
	b.ReportAllocs()
	s := ToolResultPairing()
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		t, err := transcript.FromMessages(data, transcript.Target(stagetest.Anthropic))
		if err != nil {
			b.Fatal(err)
		}
		if warm {
			for _, m := range t.Messages {
				m.Role()
				if bl, _ := m.Blocks(); bl != nil {
					for _, x := range bl {
						x.Type()
					}
				}
			}
		}
		env := &stage.Env{Policy: policy.Resolve(stagetest.Anthropic), Report: stage.NewReport(), Fanout: fan}
		n = len(t.Messages)
		runtime.GC() // the setup's garbage is not the rule's cost
		b.StartTimer()
		before := processCPU()
		if err := s.Apply(context.Background(), t, env); err != nil {
			b.Fatal(err)
		}
		cpu += processCPU() - before
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

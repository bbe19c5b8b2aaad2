package tokens

import (
	"syscall"
	"testing"
	"time"
)

// cpuNow is the process's CPU time (user and system): on a shared machine
// the wall clock of a benchmark counts other processes' time too.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the CPU time per operation, and per byte counted, to a
// benchmark that ran b.N times since start.
func reportCPU(b *testing.B, start time.Duration, bytes int) {
	per := float64(cpuNow()-start) / float64(b.N)
	b.ReportMetric(per, "cpu-ns/op")
	if bytes > 0 {
		b.ReportMetric(float64(bytes)/per*1e3, "cpu-MB/s")
	}
}

// Package memlimit sizes the worker's memory: it finds the container's
// memory limit (cgroup v2 memory.max, or cgroup v1 memory.limit_in_bytes),
// derives the process budget from it (memory.limit_ratio, 90% by default,
// so the kernel's OOM killer is never the first to act), checks that the
// configured bounds fit in that budget, and sets the Go runtime's soft
// memory limit (debug.SetMemoryLimit) to the part of the budget the Go heap
// may use. For a process that runs one job (`worker sanitize`), ForJob
// sizes the limit from the job instead. HeapFloor keeps the collector's
// heap goal at least memory.gc_floor_bytes while the live heap is small, so
// a worker of small jobs does not collect every few MiB of garbage.
//
// libvips decodes images in C memory, outside the Go heap: the Go limit is
// the budget minus images.max_decoded_bytes. The image cache and the
// in-flight job bytes live in the Go heap; what is left of the budget after
// the three bounds is the working room for decoding transcripts, encoding
// outputs and the runtime itself.
//
// May import: no package of this module.
package memlimit

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
)

// Settings are the inputs of Plan.
type Settings struct {
	// LimitBytes is the process budget; 0 derives it from the container.
	LimitBytes int64
	// ContainerLimitBytes is the container's limit as the deployment states
	// it (the Helm chart passes resources.limits.memory); 0 reads the cgroup.
	ContainerLimitBytes int64
	// Ratio is the share of the container limit used as the budget when
	// LimitBytes is 0.
	Ratio float64
	// DecodeBytes, CacheBytes and InflightBytes are the configured bounds:
	// images.max_decoded_bytes, images.cache_bytes and
	// pipeline.max_inflight_bytes.
	DecodeBytes, CacheBytes, InflightBytes int64
	// FloorBytes is memory.gc_floor_bytes, the heap goal HeapFloor keeps
	// while the live heap is small; 0 is none.
	FloorBytes int64
}

// Plan is the worker's memory budget.
type Plan struct {
	// LimitBytes is the process budget; 0 means none (no limit is known).
	LimitBytes int64
	// GoLimitBytes is the Go runtime's soft memory limit; 0 means none.
	GoLimitBytes int64
	// Source says where LimitBytes came from: "memory.limit_bytes",
	// "memory.container_limit_bytes", "cgroup v2", "cgroup v1" or "none".
	Source string
	// FloorBytes is the heap floor to start (StartHeapFloor); 0 is none.
	FloorBytes int64
}

// Make computes the plan of s, reading the cgroup files under cgroupRoot
// (normally /sys/fs/cgroup) when neither limit is set. It fails, with the
// arithmetic, when the bounds do not fit in the budget.
func Make(s Settings, cgroupRoot string) (Plan, error) {
	p := Plan{LimitBytes: s.LimitBytes, Source: "memory.limit_bytes", FloorBytes: s.FloorBytes}
	if p.LimitBytes == 0 {
		container, source := s.ContainerLimitBytes, "memory.container_limit_bytes"
		if container == 0 {
			var err error
			if container, source, err = CgroupLimit(cgroupRoot); err != nil {
				return Plan{}, err
			}
		}
		if container == 0 {
			return Plan{Source: "none", FloorBytes: s.FloorBytes}, nil
		}
		p.LimitBytes, p.Source = int64(float64(container)*s.Ratio), source
	}
	used := s.DecodeBytes + s.CacheBytes + s.InflightBytes
	if used > p.LimitBytes {
		return Plan{}, fmt.Errorf("memory: the configured bounds need %s (images.max_decoded_bytes %s + images.cache_bytes %s + pipeline.max_inflight_bytes %s), more than the memory limit of %s (from %s); lower them or raise the limit",
			mib(used), mib(s.DecodeBytes), mib(s.CacheBytes), mib(s.InflightBytes), mib(p.LimitBytes), p.Source)
	}
	p.GoLimitBytes = p.LimitBytes - s.DecodeBytes
	if s.FloorBytes > p.GoLimitBytes {
		return Plan{}, fmt.Errorf("memory: memory.gc_floor_bytes %s is more than the Go memory limit of %s (the memory limit of %s from %s less images.max_decoded_bytes %s); lower it or raise the limit",
			mib(s.FloorBytes), mib(p.GoLimitBytes), mib(p.LimitBytes), p.Source, mib(s.DecodeBytes))
	}
	return p, nil
}

// Apply sets the Go runtime's soft memory limit to p.GoLimitBytes (when it
// is set) and returns the previous one.
func (p Plan) Apply() int64 {
	if p.GoLimitBytes <= 0 {
		return debug.SetMemoryLimit(-1)
	}
	return debug.SetMemoryLimit(p.GoLimitBytes)
}

// ForJob is the Go soft memory limit of a process that runs one job of
// inputBytes: held (what the runtime holds with the job read, HeldBytes)
// plus ratio times the input, the room for the job's tapes, message views,
// edits and output, and at least MinJobRoom. 0 (no limit) when ratio is 0
// or less.
//
// Without a limit the collector lets the heap grow to twice what was live
// after the last collection, and a long job's live heap is its input, its
// tapes and views and its edits: the peak is about twice that. With the
// limit the collector runs when the heap reaches it, so a job whose live
// heap stays under the limit peaks near the limit; one whose live heap
// exceeds it is not refused, it costs more collections (the runtime caps
// their share of the CPU at about half).
func ForJob(held, inputBytes int64, ratio float64) int64 {
	if ratio <= 0 {
		return 0
	}
	return held + max(int64(ratio*float64(inputBytes)), MinJobRoom)
}

// MinJobRoom is the least room ForJob gives a job: what any job may need
// whatever its size (the tokenizers' vocabularies loaded on first use, a
// decoded image's bytes). A small job under a limit of its own size would
// collect at every few allocations (20 collections for a 95 kB example
// instead of 1) to save nothing that matters.
const MinJobRoom = 64 << 20

// HeldBytes is the memory the Go runtime holds from the OS now, as its
// soft memory limit counts it: everything it mapped less the heap memory
// it released.
func HeldBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// CgroupLimit returns the memory limit of the cgroup this process is in,
// and which cgroup version said so; 0 when there is none ("max", or no
// cgroup memory controller). root is the cgroup mount, /sys/fs/cgroup.
func CgroupLimit(root string) (int64, string, error) {
	// The process's own cgroup first ("0::/path" for v2, "N:memory:/path"
	// for v1 in /proc/self/cgroup; inside a container the namespace makes
	// it "/"), then the mount's root.
	v2, v1 := ownCgroups()
	candidates := []struct{ path, version string }{
		{filepath.Join(root, v2, "memory.max"), "cgroup v2"},
		{filepath.Join(root, "memory.max"), "cgroup v2"},
		{filepath.Join(root, "memory", v1, "memory.limit_in_bytes"), "cgroup v1"},
		{filepath.Join(root, "memory", "memory.limit_in_bytes"), "cgroup v1"},
	}
	for _, c := range candidates {
		if limit, ok, err := readLimit(c.path); ok || err != nil {
			return limit, c.version, err
		}
	}
	return 0, "none", nil
}

// ownCgroups returns the process's cgroup v2 path and its cgroup v1 memory
// controller path, "/" where they are not known.
func ownCgroups() (v2, v1 string) {
	v2, v1 = "/", "/"
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return v2, v1
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.SplitN(line, ":", 3)
		if len(fields) != 3 {
			continue
		}
		switch {
		case fields[0] == "0" && fields[1] == "":
			v2 = fields[2]
		case slices.Contains(strings.Split(fields[1], ","), "memory"):
			v1 = fields[2]
		}
	}
	return v2, v1
}

// readLimit reads one limit file: ok is false when it does not exist; a
// limit of "max" or one so large it means none (cgroup v1 writes about
// 2^63 rounded to the page size) is 0.
func readLimit(path string) (int64, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("memory: reading %s: %w", path, err)
	}
	text := strings.TrimSpace(string(data))
	if text == "max" {
		return 0, true, nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("memory: %s holds %q, not a byte count", path, text)
	}
	if n >= math.MaxInt64/2 {
		return 0, true, nil
	}
	return n, true, nil
}

// mib writes n bytes in MiB with two decimals, and the exact byte count.
func mib(n int64) string {
	return fmt.Sprintf("%.2f MiB (%d bytes)", float64(n)/(1<<20), n)
}

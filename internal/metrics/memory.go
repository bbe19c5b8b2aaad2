package metrics

import (
	"runtime/metrics"

	"github.com/prometheus/client_golang/prometheus"
)

// heapInUse is the runtime/metrics sample of the heap bytes in use: live
// and not yet swept objects plus the unused parts of in-use spans (what
// runtime.MemStats.HeapInuse reports, without stopping the world).
var heapInUse = []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes"}

// RegisterMemory registers hygiene_memory_limit_bytes (the process's memory
// budget, 0 when none is set), hygiene_go_memory_limit_bytes (the Go
// runtime's soft limit derived from it) and hygiene_heap_inuse_bytes.
func (m *Metrics) RegisterMemory(limit, goLimit int64) error {
	limitGauge := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "memory_limit_bytes",
		Help: "The worker's memory budget (memory.limit_bytes or memory.limit_ratio of the container limit); 0 when none is set.",
	})
	limitGauge.Set(float64(limit))
	goGauge := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "go_memory_limit_bytes",
		Help: "The Go runtime's soft memory limit: the budget minus images.max_decoded_bytes (libvips decodes outside the Go heap); 0 when none is set.",
	})
	goGauge.Set(float64(goLimit))
	heap := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "heap_inuse_bytes",
		Help: "Go heap bytes in use (objects and the unused parts of in-use spans).",
	}, func() float64 {
		samples := make([]metrics.Sample, len(heapInUse))
		for i, name := range heapInUse {
			samples[i].Name = name
		}
		metrics.Read(samples)
		var n uint64
		for _, s := range samples {
			if s.Value.Kind() == metrics.KindUint64 {
				n += s.Value.Uint64()
			}
		}
		return float64(n)
	})
	return m.register(limitGauge, goGauge, heap)
}

package memlimit

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// HeapFloor keeps the collector's heap goal at least a floor of bytes while
// the live heap is small, and at GOGC's (twice the live heap at the default
// 100) once it is large: a worker whose live heap is a few MiB and whose
// jobs make garbage fast collects every few MiB under GOGC=100, and at most
// every floor bytes with one. The heap it costs is bounded by the floor;
// the Go soft memory limit still bounds the whole.
//
// After each collection (a cleanup on a sentinel object that the collection
// found unreachable, re-armed each time) it reads the live heap and sets
// debug.SetGCPercent to FloorPercent.
type HeapFloor struct {
	floor int64
	// base is the GC percent before the floor started (GOGC's), restored
	// by Stop.
	base int64
	// mu orders a pending cleanup's SetGCPercent against Stop's restoring
	// base: once stopped, nothing sets the percent again.
	mu      sync.Mutex
	stopped bool
}

// sentinel is the object whose cleanup runs after each collection; it is
// larger than the tiny allocator's 16 bytes, whose blocks are shared and
// may never be freed.
type sentinel [32]byte

// StartHeapFloor starts keeping the heap goal at least floor bytes. A floor
// of 0 or less, or a collector turned off (GOGC=off), starts nothing; Stop
// is then a no-op.
func StartHeapFloor(floor int64) *HeapFloor {
	base := GCPercent()
	h := &HeapFloor{floor: floor, base: base}
	if floor <= 0 || base < 0 {
		h.stopped = true
		return h
	}
	h.afterGC(0)
	return h
}

// Stop stops adjusting the collector and restores the GC percent it started
// from. A cleanup still armed runs once at the next collection and does
// nothing.
func (h *HeapFloor) Stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return
	}
	h.stopped = true
	debug.SetGCPercent(int(h.base))
}

// afterGC sets the GC percent from the live heap the last collection found,
// and arms the next run. Its argument is unused: runtime.AddCleanup's
// function takes one.
func (h *HeapFloor) afterGC(int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}
	metrics.Read(s)
	live := int64(s[0].Value.Uint64())
	roots := int64(s[1].Value.Uint64() + s[2].Value.Uint64())
	debug.SetGCPercent(int(FloorPercent(h.floor, live, roots, h.base)))
	runtime.AddCleanup(new(sentinel), h.afterGC, 0)
}

// GCPercent is the collector's GC percent now (GOGC's unless
// debug.SetGCPercent changed it), -1 when the collector is off: read
// without setting it.
func GCPercent() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// heapMinimum is the Go runtime's least heap goal at GOGC=100 (its
// defaultHeapMinimum); it scales with the GC percent, so a percent above
// floor*100/heapMinimum would raise the goal above the floor however small
// the live heap.
const heapMinimum = 4 << 20

// FloorPercent is the GC percent that puts the collector's heap goal at
// floor bytes after a collection that found live bytes live and roots bytes
// of stacks and globals to scan (the runtime's goal is live + (live +
// roots) x percent/100), capped so that the runtime's heap minimum (which
// scales with the percent) stays within the floor, and never below base
// (GOGC's percent): once the live heap is half the floor or more it is base.
// A base below 0 (the collector off) is returned as it is.
func FloorPercent(floor, live, roots, base int64) int64 {
	if base < 0 || floor <= live {
		return base
	}
	limit := floor * 100 / heapMinimum
	percent := limit
	if scanned := live + roots; scanned > 0 {
		percent = min((floor-live)*100/scanned, limit)
	}
	return max(percent, base)
}

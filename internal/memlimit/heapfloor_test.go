package memlimit

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// FloorPercent puts the heap goal at the floor, within the runtime's
// minimum heap's cap, never below GOGC's percent, and leaves a collector
// that is off alone.
func TestFloorPercent(t *testing.T) {
	for _, c := range []struct {
		name                     string
		floor, live, roots, base int64
		want                     int64
	}{
		{name: "small live heap, capped by the heap minimum", floor: 64 << 20, live: 2 << 20, roots: 0, base: 100, want: 1600},
		{name: "small live heap and roots", floor: 64 << 20, live: 3 << 20, roots: 1 << 20, base: 100, want: 1525},
		{name: "goal at the floor", floor: 64 << 20, live: 16 << 20, roots: 0, base: 100, want: 300},
		{name: "roots count in the goal", floor: 64 << 20, live: 16 << 20, roots: 16 << 20, base: 100, want: 150},
		{name: "live at half the floor", floor: 64 << 20, live: 32 << 20, roots: 0, base: 100, want: 100},
		{name: "live above the floor", floor: 64 << 20, live: 200 << 20, roots: 1 << 20, base: 100, want: 100},
		{name: "nothing measured yet", floor: 64 << 20, live: 0, roots: 0, base: 100, want: 1600},
		{name: "GOGC above the floor's percent", floor: 64 << 20, live: 16 << 20, roots: 0, base: 400, want: 400},
		{name: "GOGC off", floor: 64 << 20, live: 3 << 20, roots: 0, base: -1, want: -1},
		{name: "floor below the heap minimum", floor: 2 << 20, live: 1 << 20, roots: 0, base: 100, want: 100},
	} {
		if got := FloorPercent(c.floor, c.live, c.roots, c.base); got != c.want {
			t.Errorf("%s: FloorPercent(%d, %d, %d, %d) = %d, want %d", c.name, c.floor, c.live, c.roots, c.base, got, c.want)
		}
	}
}

// heapGoal is the collector's heap goal now, in bytes.
func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sink keeps garbage from being optimised away.
var sink []byte

// cyclesToAllocate is the number of collections while allocating total
// bytes of garbage in 8 KiB pieces.
func cyclesToAllocate(total int) uint32 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for n := 0; n < total; n += 8 << 10 {
		sink = make([]byte, 8<<10)
	}
	runtime.ReadMemStats(&after)
	return after.NumGC - before.NumGC
}

// waitForPercent collects until the heap floor has set the percent that
// satisfies ok (its cleanup runs after a collection, on another goroutine).
func waitForPercent(t *testing.T, ok func(int64) bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok(GCPercent()) {
		if time.Now().After(deadline) {
			t.Fatalf("the GC percent is %d, want %s", GCPercent(), what)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// With a 64 MiB floor, garbage over a small live heap is collected several
// times less often than at GOGC=100; a live heap above the floor brings the
// percent back to 100, and Stop restores it for good.
func TestHeapFloor(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	// The heap this test grows goes back to the OS, for the tests that
	// measure what the runtime holds.
	t.Cleanup(debug.FreeOSMemory)
	const garbage = 512 << 20

	without, goalWithout := cyclesToAllocate(garbage), heapGoal()
	h := StartHeapFloor(64 << 20)
	defer h.Stop()
	waitForPercent(t, func(p int64) bool { return p > 100 }, "above 100 with a small live heap")
	goal := heapGoal()
	with := cyclesToAllocate(garbage)
	t.Logf("heap goal %d MiB at GOGC=100, %d MiB with a 64 MiB floor; collections over %d MiB of garbage: %d, %d",
		goalWithout>>20, goal>>20, garbage>>20, without, with)
	// The goal is read, not timed: a loaded machine's collector finishes
	// fewer cycles of a burst of garbage at GOGC=100 (the allocation runs
	// on through each concurrent mark), so a ratio of counts is not a
	// bound. With the floor the goal is about 64 MiB, a collection at most
	// every 32 MiB of garbage; at GOGC=100 over this live heap it is a few
	// MiB.
	if goal < 48<<20 {
		t.Fatalf("heap goal %d MiB with a 64 MiB floor and a small live heap, want at least 48 MiB", goal>>20)
	}
	if with > garbage/(32<<20) {
		t.Fatalf("%d collections over %d MiB of garbage with a 64 MiB floor, want at most %d", with, garbage>>20, garbage/(32<<20))
	}

	live := make([]byte, 96<<20)
	for i := range live {
		live[i] = 1
	}
	waitForPercent(t, func(p int64) bool { return p == 100 }, "100 with a live heap above the floor")
	runtime.KeepAlive(live)
	live = nil
	waitForPercent(t, func(p int64) bool { return p > 100 }, "above 100 once the live heap is small again")

	h.Stop()
	if p := GCPercent(); p != 100 {
		t.Fatalf("Stop left the GC percent at %d, want 100", p)
	}
	runtime.GC()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if p := GCPercent(); p != 100 {
		t.Fatalf("a collection after Stop set the GC percent to %d", p)
	}
}

// A floor of 0 starts nothing.
func TestHeapFloorOff(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	h := StartHeapFloor(0)
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if p := GCPercent(); p != 100 {
		t.Fatalf("a floor of 0 set the GC percent to %d", p)
	}
	h.Stop()
}

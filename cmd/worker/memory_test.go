package main

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
)

// A configuration whose bounds do not fit its memory limit is refused at
// start, with the sum in the message.
func TestMemoryPlanRefusesBoundsOverTheLimit(t *testing.T) {
	cfg := config.Default()
	cfg.Memory.LimitBytes = 1 << 30
	if p, err := memoryPlan(cfg); err != nil || p.GoLimitBytes != 1<<30-cfg.Images.MaxDecodedBytes {
		t.Fatalf("the defaults in 1 GiB: %+v, %v", p, err)
	}
	cfg.Pipeline.MaxInflightBytes = 512 << 20
	_, err := memoryPlan(cfg)
	if err == nil || !strings.Contains(err.Error(), "1280.00 MiB") || !strings.Contains(err.Error(), "1024.00 MiB") {
		t.Fatalf("bounds of 1280 MiB in a 1 GiB limit: %v", err)
	}
}

// The heap floor is part of the plan, and one over the Go memory limit is
// refused at start.
func TestMemoryPlanChecksTheHeapFloor(t *testing.T) {
	cfg := config.Default()
	cfg.Memory.LimitBytes = 1 << 30
	if p, err := memoryPlan(cfg); err != nil || p.FloorBytes != cfg.Memory.GCFloorBytes {
		t.Fatalf("the default floor in 1 GiB: %+v, %v", p, err)
	}
	cfg.Memory.GCFloorBytes = 1 << 30
	if _, err := memoryPlan(cfg); err == nil || !strings.Contains(err.Error(), "memory.gc_floor_bytes 1024.00 MiB") {
		t.Fatalf("a 1 GiB floor under a 512 MiB Go limit: %v", err)
	}
}

package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestRegisterMemory(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.RegisterMemory(1<<30, 768<<20); err != nil {
		t.Fatal(err)
	}
	problems, err := testutil.GatherAndLint(reg, "hygiene_memory_limit_bytes", "hygiene_go_memory_limit_bytes", "hygiene_heap_inuse_bytes")
	if err != nil || len(problems) > 0 {
		t.Fatalf("lint: %v %v", err, problems)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		got[f.GetName()] = f.GetMetric()[0].GetGauge().GetValue()
	}
	if got["hygiene_memory_limit_bytes"] != 1<<30 || got["hygiene_go_memory_limit_bytes"] != 768<<20 {
		t.Fatalf("limits exported as %v", got)
	}
	if got["hygiene_heap_inuse_bytes"] <= 0 {
		t.Fatalf("hygiene_heap_inuse_bytes = %v, want the heap in use", got["hygiene_heap_inuse_bytes"])
	}
}

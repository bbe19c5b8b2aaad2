package config

import "testing"

// TestFanoutSettings checks that the fanout settings are read from YAML
// and from HYGIENE_ variables (the variable wins), and how many helpers
// they give.
func TestFanoutSettings(t *testing.T) {
	path := writeFile(t, "pipeline:\n  fanout_workers: 3\n  fanout_min_messages: 500\n  fanout_min_bytes: 4096\n")
	cfg, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Pipeline.FanoutWorkers != 3 || cfg.Pipeline.FanoutMinMessages != 500 || cfg.Pipeline.FanoutMinBytes != 4096 {
		t.Fatalf("from YAML: %+v", cfg.Pipeline)
	}
	cfg, err = Load(path, []string{"HYGIENE_PIPELINE_FANOUT_MIN_MESSAGES=0", "HYGIENE_PIPELINE_FANOUT_WORKERS=1", "HYGIENE_PIPELINE_FANOUT_MIN_BYTES=0"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Pipeline.FanoutWorkers != 1 || cfg.Pipeline.FanoutMinMessages != 0 || cfg.Pipeline.FanoutMinBytes != 0 {
		t.Fatalf("from the environment: %+v", cfg.Pipeline)
	}
	for _, c := range []struct{ workers, cores, want int }{{0, 1, 0}, {0, 2, 1}, {0, 8, 7}, {4, 2, 4}} {
		if got := (PipelineConfig{FanoutWorkers: c.workers}).FanoutPoolSize(c.cores); got != c.want {
			t.Errorf("FanoutPoolSize(workers %d, cores %d) = %d, want %d", c.workers, c.cores, got, c.want)
		}
	}
}

package config

import (
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/settings"
)

func TestLoadRejectsBadFiles(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"unknown top-level key", "kafka: {}\nimage:\n  max_bytes: 1\n", `unknown key "image" at line 2`},
		{"unknown nested key", "kafka:\n  tls:\n    enabeld: true\n", `unknown key "kafka.tls.enabeld" at line 3`},
		{"unknown key deep in pruning", "pruning:\n  soft_trim:\n    max_char: 3\n", `unknown key "pruning.soft_trim.max_char" at line 3`},
		{"unknown key in a tenant", "tenants:\n  acme:\n    images:\n      max_dimension: 5\n", `unknown key "tenants.acme.images.max_dimension" at line 4`},
		{"unknown image key in a tenant", "tenants:\n  acme:\n    images:\n      max_dimension: 5\n", `unknown key "tenants.acme.images.max_dimension"`},
		{"global-only rate key in a tenant", "tenants:\n  acme:\n    rate_limits: {max_waiting_jobs: 3}\n", "tenants.acme.rate_limits.max_waiting_jobs at line 3: a global setting"},
		{"global-only image key in a tenant", "tenants:\n  acme:\n    images:\n      workers: 5\n", "tenants.acme.images.workers at line 4: a global setting, which a tenant cannot override"},
		{"integer for duration", "pipeline:\n  shutdown_timeout: 25\n", `pipeline.shutdown_timeout (line 2): cannot read "25" as a duration`},
		{"integer for the pruning ttl", "pruning:\n  ttl: 300000\n", `pruning.ttl (line 2): cannot read "300000" as a duration`},
		{"a job's ttl_ms in YAML", "tenants:\n  acme:\n    pruning: {ttl_ms: 5}\n", `unknown key "tenants.acme.pruning.ttl_ms" at line 3`},
		{"job state in YAML", "pruning:\n  last_cache_touch_ms: 5\n", `unknown key "pruning.last_cache_touch_ms" at line 2`},
		{"string for integer", "images:\n  max_bytes: 5MB\n", `images.max_bytes (line 2): cannot read "5MB" as an integer`},
		{"mapping for list", "kafka:\n  brokers: {a: 1}\n", `kafka.brokers (line 2): cannot read "{a: 1}" as a list of strings`},
		{"scalar for section", "kafka: on\n", `kafka (line 1): must be a mapping of keys`},
		{"bad tenant value type", "tenants:\n  acme:\n    pool_share: lots\n", `tenants.acme.pool_share (line 3): cannot read "lots" as a number`},
		{"two documents", "log: {level: info}\n---\nlog: {level: debug}\n", "more than one YAML document"},
		{"syntax error", "kafka: [\n", "config file"},
		{"valid YAML, invalid value", "images:\n  max_dimension_px: 0\n", "images.max_dimension_px (line 2): must be at least 1, got 0"},
		{"a tenant's invalid value", "tenants:\n  eu.acme-1:\n    pruning:\n      soft_trim_ratio: 3\n",
			"tenants.eu.acme-1.pruning.soft_trim_ratio (line 4): must be between 0 and 1, got 3"},
		{"an invalid list item", "pruning:\n  tools:\n    deny: [a, ' ']\n", "pruning.tools.deny[1] (line 3): must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeFile(t, tt.file), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("/nonexistent/worker.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/worker.yaml") {
		t.Fatalf("got %v, want an error naming the file", err)
	}
}

func TestLoadKeepsDefaultsForKeysLeftOut(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		check func(Config) bool
	}{
		{"empty file", "", func(c Config) bool { return c.Kafka.GroupID == "hygiene-worker" }},
		{"comments only", "# nothing\n", func(c Config) bool { return c.Images.MaxDimensionPx == 1200 }},
		{"one nested key keeps its siblings", "kafka:\n  tls:\n    enabled: true\n",
			func(c Config) bool {
				return c.Kafka.TLS.Enabled && c.Kafka.TLS.CAFile == "" && c.Kafka.JobsTopic == "hygiene.jobs"
			}},
		{"null section keeps the defaults", "pruning:\n", func(c Config) bool { return c.Pruning.TTL == settings.Duration(5*time.Minute) }},
		{"null list is the empty list", "kafka:\n  brokers:\n", func(c Config) bool { return c.Kafka.Brokers != nil && len(c.Kafka.Brokers) == 0 }},
		{"null tenants is the empty map", "tenants:\n", func(c Config) bool { return c.Tenants != nil && len(c.Tenants) == 0 }},
		{"anchors and aliases", "images:\n  max_dimension_px: &px 900\n  many_images_max_dimension_px: *px\n",
			func(c Config) bool { return c.Images.MaxDimensionPx == 900 && c.Images.ManyImagesMaxDimensionPx == 900 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(writeFile(t, tt.file), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(cfg) {
				t.Fatalf("unexpected config %+v", cfg)
			}
		})
	}
}

// A value the environment set is not given the line of the file's value,
// which it replaced.
func TestLoadNamesNoLineForAnEnvironmentValue(t *testing.T) {
	path := writeFile(t, "images:\n  max_dimension_px: 0\n")
	_, err := Load(path, []string{"HYGIENE_IMAGES_MAX_DIMENSION_PX=-1"})
	if err == nil || !strings.Contains(err.Error(), "images.max_dimension_px: must be at least 1, got -1") {
		t.Fatalf("Load = %v", err)
	}
}

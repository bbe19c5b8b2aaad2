package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// Print's output loads back to the same config (secrets aside).
func TestPrintRoundTrip(t *testing.T) {
	share := 0.25
	tests := []struct {
		name   string
		mutate func(*Config)
	}{
		{"defaults", func(*Config) {}},
		{"everything set", func(c *Config) {
			c.Kafka.Brokers = []string{"a:9092", "b:9092"}
			c.Kafka.TLS = kafka.TLSConfig{Enabled: true, CAFile: "/tls/ca.crt"}
			c.Pruning.Mode = settings.PruningCacheTTL
			c.Pruning.Tools.Deny = []string{"read"}
			c.Hygiene.MissingToolResultText = "no: result\n\"quoted\""
			c.Tenants["acme"] = TenantOverride{
				Images:     settings.OverlayOf[settings.Images]("max_dimension_px: 640"),
				Pruning:    settings.OverlayOf[settings.Pruning]("{mode: cache-ttl, tools: {allow: [exec*]}}"),
				PoolShare:  &share,
				RateLimits: settings.OverlayOf[RateLimitsConfig]("jobs_per_second: 5"),
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := Default()
			tt.mutate(&want)
			var buf bytes.Buffer
			if err := Print(&buf, want); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "printed.yaml")
			if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := Load(path, nil)
			if err != nil {
				t.Fatalf("printed config does not load: %v\n%s", err, buf.String())
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip changed the config:\n%s\ngot  %+v\nwant %+v", buf.String(), got, want)
			}
		})
	}
}

func TestPrintRedactsSecrets(t *testing.T) {
	tests := []struct {
		password, want string
	}{
		{"hunter2-secret", "password: " + Redacted},
		{"", `password: ""`},
	}
	for _, tt := range tests {
		cfg := Default()
		cfg.Kafka.SASL = kafka.SASLConfig{Mechanism: kafka.SASLPlain, Username: "svc", Password: tt.password}
		var buf bytes.Buffer
		if err := Print(&buf, cfg); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if tt.password != "" && strings.Contains(out, tt.password) {
			t.Errorf("Print leaked the password:\n%s", out)
		}
		if !strings.Contains(out, tt.want) {
			t.Errorf("Print output lacks %q:\n%s", tt.want, out)
		}
		if cfg.Kafka.SASL.Password != tt.password {
			t.Errorf("Print changed its argument's password to %q", cfg.Kafka.SASL.Password)
		}
	}
}

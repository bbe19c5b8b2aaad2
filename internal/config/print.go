package config

import (
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Redacted replaces a secret's value in Print's output.
const Redacted = "<redacted>"

// Print writes cfg as YAML in the layout of configs/worker.yaml, with
// secrets (kafka.sasl.password) replaced by Redacted when set.
func Print(w io.Writer, cfg Config) error {
	if cfg.Kafka.SASL.Password != "" {
		cfg.Kafka.SASL.Password = Redacted
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(cfg); err != nil {
		return fmt.Errorf("print config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("print config: %w", err)
	}
	return nil
}

package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"go.yaml.in/yaml/v3"
)

// Load builds the effective configuration: Default(), then the YAML file at
// path decoded strictly over it (path "" reads no file), then the HYGIENE_*
// variables of environ (in os.Environ's "KEY=value" form), then Validate.
func Load(path string, environ []string) (Config, error) {
	cfg := Default()
	var data []byte
	if path != "" {
		var err error
		data, err = os.ReadFile(path)
		if err != nil {
			return Config{}, fmt.Errorf("read config: %w", err)
		}
		if err := decodeYAML(data, &cfg); err != nil {
			return Config{}, fmt.Errorf("config file %s: %w", path, err)
		}
	}
	if err := applyEnv(&cfg, environ); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, located(err, data, environ)
	}
	return cfg, nil
}

// decodeYAML decodes one YAML document over cfg. Every key is checked
// against the Config type first, so an unknown key or a value of the wrong
// type is reported with its full dotted path and line.
func decodeYAML(data []byte, cfg *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file keeps the defaults
		}
		return err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("holds more than one YAML document")
	}
	if err := checkNode(&doc, configType, ""); err != nil {
		return err
	}
	if err := doc.Decode(cfg); err != nil {
		return err
	}
	cfg.normalize()
	return nil
}

// normalize turns the nil lists and maps that an explicit YAML null leaves
// into empty ones, so that "no value" has one representation.
func (c *Config) normalize() {
	if c.Kafka.Brokers == nil {
		c.Kafka.Brokers = []string{}
	}
	if c.Pruning.Tools.Allow == nil {
		c.Pruning.Tools.Allow = []string{}
	}
	if c.Pruning.Tools.Deny == nil {
		c.Pruning.Tools.Deny = []string{}
	}
	if c.Tenants == nil {
		c.Tenants = map[string]TenantOverride{}
	}
}

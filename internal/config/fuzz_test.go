package config

import (
	"bytes"
	"os"
	"reflect"
	"testing"
)

// FuzzDecodeYAML: any input either fails with an error or decodes to a
// config that, when valid, prints and decodes back to itself.
func FuzzDecodeYAML(f *testing.F) {
	shipped, err := os.ReadFile(shippedFile)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{string(shipped), "", "kafka: {brokers: [a:1]}", "tenants: {a: {pool_share: 0.1, images: {max_frames: 2}}}",
		"pruning: {ttl: 1h, tools: {deny: ['*']}}", "x: &a [*a]", "images: {max_bytes: 1e3}"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := Default()
		if err := decodeYAML(data, &cfg); err != nil || cfg.Validate() != nil {
			return
		}
		var buf bytes.Buffer
		if err := Print(&buf, cfg); err != nil {
			t.Fatalf("Print: %v", err)
		}
		again := Default()
		if err := decodeYAML(buf.Bytes(), &again); err != nil {
			t.Fatalf("printed config does not decode: %v\n%s", err, buf.String())
		}
		if cfg.Kafka.SASL.Password != "" {
			again.Kafka.SASL.Password = cfg.Kafka.SASL.Password
		}
		if !reflect.DeepEqual(cfg, again) {
			t.Fatalf("round trip changed the config:\n%s", buf.String())
		}
	})
}

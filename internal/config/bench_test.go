package config

import "testing"

// BenchmarkLoad measures loading the shipped file with a few overrides.
func BenchmarkLoad(b *testing.B) {
	environ := []string{"HYGIENE_KAFKA_BROKERS=a:9092,b:9092", "HYGIENE_LOG_LEVEL=debug", "PATH=/bin"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(shippedFile, environ); err != nil {
			b.Fatal(err)
		}
	}
}

package tokens

import "testing"

// BenchmarkText counts this repository's documentation and contract
// sources (English prose and Go code) with o200k_base: this package's
// pre-tokenizer and merge against tiktoken-go's Count on the same bytes.
// cpu-MB/s is the figure to read on a shared machine.
func BenchmarkText(b *testing.B) {
	var text []byte
	for _, t := range repoTexts(b) {
		text = append(text, t...)
	}
	o200k.load()
	b.Run("tokens", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		c := cpuNow()
		for b.Loop() {
			o200k.count(text)
		}
		reportCPU(b, c, len(text))
	})
	b.Run("tiktoken-go", func(b *testing.B) {
		ref := oracle(b, o200k)
		s := string(text)
		b.SetBytes(int64(len(text)))
		c := cpuNow()
		for b.Loop() {
			_, _ = ref.Count(s)
		}
		reportCPU(b, c, len(text))
	})
}

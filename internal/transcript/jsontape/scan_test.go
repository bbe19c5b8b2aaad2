package jsontape

import (
	"math/rand/v2"
	"testing"
)

// plainRunBytewise is plainRun's definition, one byte at a time.
func plainRunBytewise(data []byte, i int) int {
	for i < len(data) && plainStringByte[data[i]] {
		i++
	}
	return i
}

// TestPlainRunMatchesBytewise checks the eight-bytes-a-step scan against the
// byte-at-a-time definition, with every special byte at every position of
// a word.
func TestPlainRunMatchesBytewise(t *testing.T) {
	specials := []byte{'"', '\\', 0x00, 0x1f, 0x7f, 0x80, 0xc3, 0xff, 0x20, 0x21, 0x5b, 0x5d, 0x23, 0x01}
	for n := 0; n < 24; n++ {
		for at := 0; at < n; at++ {
			for _, c := range specials {
				data := make([]byte, n)
				for k := range data {
					data[k] = 'a'
				}
				data[at] = c
				for start := 0; start <= n; start++ {
					if got, want := plainRun(data, start), plainRunBytewise(data, start); got != want {
						t.Fatalf("plainRun(%q, %d) = %d, want %d", data, start, got, want)
					}
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		data := make([]byte, rng.IntN(40))
		for k := range data {
			data[k] = byte(rng.IntN(256))
			if rng.IntN(4) > 0 {
				data[k] = byte(0x20 + rng.IntN(0x60))
			}
		}
		if got, want := plainRun(data, 0), plainRunBytewise(data, 0); got != want {
			t.Fatalf("plainRun(%q) = %d, want %d", data, got, want)
		}
	}
}

// FuzzPlainRun checks plainRun against its byte-at-a-time definition.
func FuzzPlainRun(f *testing.F) {
	f.Add([]byte(`hello "world"`))
	f.Add([]byte("caf\xc3\xa9 \\n\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for start := 0; start <= len(data) && start < 16; start++ {
			if got, want := plainRun(data, start), plainRunBytewise(data, start); got != want {
				t.Fatalf("plainRun(%q, %d) = %d, want %d", data, start, got, want)
			}
		}
	})
}

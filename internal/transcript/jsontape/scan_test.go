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

// numberBefore is the number scan as bfac9d1 wrote it (a closure for the
// digits), the definition scanner.number is held to.
func numberBefore(data []byte, i int) (int, bool) {
	if data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(data) && data[i] == '0' {
		i++
	} else if digits() == 0 {
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		i++
		if digits() == 0 {
			return i, false
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return i, false
		}
	}
	return i, true
}

// TestNumberMatchesBefore runs scanner.number and numberBefore on every
// string of up to six bytes over the bytes a number is made of and a few
// around them, and wants the same end and the same outcome.
func TestNumberMatchesBefore(t *testing.T) {
	alphabet := []byte("-019.eE+/:x")
	var gen func(prefix []byte)
	gen = func(prefix []byte) {
		if len(prefix) > 0 && (prefix[0] == '-' || prefix[0] >= '0' && prefix[0] <= '9') {
			s := scanner{data: prefix}
			end, err := s.number(0)
			wantEnd, ok := numberBefore(prefix, 0)
			if end != wantEnd || (err == nil) != ok {
				t.Fatalf("number(%q) = %d, %v; before: %d, %v", prefix, end, err, wantEnd, ok)
			}
		}
		if len(prefix) == 6 {
			return
		}
		for _, c := range alphabet {
			gen(append(prefix[:len(prefix):len(prefix)], c))
		}
	}
	gen(nil)
}

package images

import (
	"bytes"
	"sync"
	"testing"
)

// TestDeterministic checks that the same input and limits give the same
// output bytes across processors and concurrent runs.
func TestDeterministic(t *testing.T) {
	inputs := map[string][]byte{
		"JPEG":       b64(encJPEG(t, pattern(1400, 900, false), 90)),
		"PNG alpha":  b64(encPNG(t, pattern(1250, 800, true))),
		"GIF":        b64(encGIF(t, pattern(1300, 900, false), 2)),
		"noisy PNG":  b64(encPNG(t, noisy(1250, 700, 3))),
		"WebP":       b64(encWebP(t, encPNG(t, pattern(1250, 1250, false)))),
		"small kept": b64(encPNG(t, pattern(100, 100, false))),
	}
	lim := Limits{MaxBytes: 600_000}
	a := newTestProcessor(t, Config{Workers: 1})
	b := newTestProcessor(t, Config{Workers: 2})
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			want := process(t, a, Request{Data: in, Limits: lim})
			var wg sync.WaitGroup
			for range 2 {
				wg.Go(func() {
					got := process(t, b, Request{Data: in, Limits: lim})
					if !bytes.Equal(got.Data, want.Data) || got.MimeType != want.MimeType || got.Outcome != want.Outcome {
						t.Errorf("run gave %v %s %d bytes, first gave %v %s %d bytes",
							got.Outcome, got.MimeType, len(got.Data), want.Outcome, want.MimeType, len(want.Data))
					}
				})
			}
			wg.Wait()
		})
	}
}

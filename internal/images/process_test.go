package images

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"strings"
	"testing"
)

// newTestProcessor returns a Processor closed at the end of the test.
func newTestProcessor(t testing.TB, cfg Config) *Processor {
	t.Helper()
	p, err := NewProcessor(cfg)
	if err != nil {
		t.Fatalf("NewProcessor: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

func process(t testing.TB, p *Processor, r Request) Result {
	t.Helper()
	res, err := p.Process(context.Background(), r)
	if err != nil {
		t.Fatalf("Process: %v", err)
	}
	return res
}

func TestProcessGoodImages(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 2})
	big := pattern(4000, 3000, false)
	alpha := pattern(1500, 750, true)
	square := pattern(1600, 1600, false)
	small := pattern(800, 600, false)
	wide := pattern(1600, 1200, false)
	tests := []struct {
		name      string
		raw       []byte
		ref       image.Image
		outcome   Outcome
		mime      string
		w, h      int
		tolerance float64
	}{
		{"JPEG 4000x3000 resized", encJPEG(t, big, 90), big, Rewritten, "image/jpeg", 1200, 900, 6},
		{"JPEG 800x600 kept", encJPEG(t, small, 90), nil, Unchanged, "image/jpeg", 800, 600, 0},
		{"PNG without alpha 1600x1600 to JPEG", encPNG(t, opaque(square)), square, Rewritten, "image/jpeg", 1200, 1200, 6},
		{"PNG with alpha 1500x750 stays PNG", encPNG(t, alpha), alpha, Rewritten, "image/png", 1200, 600, 4},
		{"PNG 800x600 kept", encPNG(t, small), nil, Unchanged, "image/png", 800, 600, 0},
		{"WebP 1600x1200 to JPEG", encWebP(t, encPNG(t, opaque(wide))), wide, Rewritten, "image/jpeg", 1200, 900, 8},
		{"WebP 800x600 kept", encWebP(t, encPNG(t, small)), nil, Unchanged, "image/webp", 800, 600, 0},
		{"animated GIF 1500x1000 to first frame", encGIF(t, pattern(1500, 1000, false), 3), pattern(1500, 1000, false), Rewritten, "image/jpeg", 1200, 800, 16},
		{"animated GIF 200x100 kept", encGIF(t, pattern(200, 100, false), 5), nil, Unchanged, "image/gif", 200, 100, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := b64(tc.raw)
			res := process(t, p, Request{Data: in, MimeType: "image/png"})
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome %v, want %v (text %q)", res.Outcome, tc.outcome, res.Text)
			}
			if tc.mime != "" && res.MimeType != tc.mime {
				t.Errorf("mime %q, want %q", res.MimeType, tc.mime)
			}
			if res.Width != tc.w || res.Height != tc.h {
				t.Errorf("dimensions %dx%d, want %dx%d", res.Width, res.Height, tc.w, tc.h)
			}
			if res.BytesIn != len(in) {
				t.Errorf("BytesIn %d, want %d", res.BytesIn, len(in))
			}
			if tc.outcome == Unchanged {
				if res.Data != nil || res.BytesOut != len(in) {
					t.Errorf("unchanged result carries %d data bytes, BytesOut %d", len(res.Data), res.BytesOut)
				}
				return
			}
			if len(res.Data) > DefaultMaxBytes || res.BytesOut != len(res.Data) {
				t.Errorf("output is %d base64 bytes, BytesOut %d", len(res.Data), res.BytesOut)
			}
			got := decodeOutput(t, res)
			if b := got.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
				t.Errorf("decoded output is %dx%d, want %dx%d", b.Dx(), b.Dy(), tc.w, tc.h)
			}
			if d := meanAbsDiff(tc.ref, got); d > tc.tolerance {
				t.Errorf("mean pixel difference %.2f, over the tolerance %.2f", d, tc.tolerance)
			}
		})
	}
}

func TestProcessKeepsAlpha(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 1})
	res := process(t, p, Request{Data: b64(encPNG(t, pattern(1500, 750, true))), MimeType: "image/png"})
	if res.Outcome != Rewritten || res.MimeType != "image/png" {
		t.Fatalf("got %v %q, want a rewritten PNG", res.Outcome, res.MimeType)
	}
	img := decodeOutput(t, res)
	if _, _, _, a := img.At(0, 300).RGBA(); a != 0 {
		t.Errorf("left edge alpha %d, want fully transparent", a)
	}
	if _, _, _, a := img.At(1199, 300).RGBA(); a != 0xffff {
		t.Errorf("right edge alpha %d, want opaque", a)
	}
}

func TestProcessAutoRotatesByEXIF(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 1})
	src := pattern(1400, 700, false)
	res := process(t, p, Request{Data: b64(withEXIFOrientation(encJPEG(t, src, 90), 6))})
	if res.Outcome != Rewritten || res.Width != 600 || res.Height != 1200 {
		t.Fatalf("got %v %dx%d, want rewritten 600x1200", res.Outcome, res.Width, res.Height)
	}
	raw, _ := base64.StdEncoding.DecodeString(string(res.Data))
	if bytes.Contains(raw, []byte("Exif")) {
		t.Error("output still carries EXIF metadata")
	}
	// Orientation 6 turns the picture clockwise: its top-left corner (dark
	// red-free, green-free) ends at the top right.
	img := decodeOutput(t, res)
	r, g, _, _ := img.At(590, 10).RGBA()
	if r>>8 > 40 || g>>8 > 40 {
		t.Errorf("top right after rotation is r=%d g=%d, want the source's top-left corner (near 0, 0)", r>>8, g>>8)
	}
}

func TestProcessLadder(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 1})
	raw := encPNG(t, noisy(1500, 1500, 7))
	for _, maxBytes := range []int{1_500_000, 600_000, 300_000} {
		res := process(t, p, Request{Data: b64(raw), Limits: Limits{MaxBytes: maxBytes}})
		if res.Outcome != Rewritten || len(res.Data) > maxBytes {
			t.Fatalf("MaxBytes %d: got %v with %d bytes (%s)", maxBytes, res.Outcome, len(res.Data), res.Text)
		}
		if res.Width > 1200 || res.Width != res.Height {
			t.Errorf("MaxBytes %d: got %dx%d", maxBytes, res.Width, res.Height)
		}
		if res.Width != 1200 && res.Width != 1000 && res.Width != 800 {
			t.Errorf("MaxBytes %d: side %d is not on the ladder", maxBytes, res.Width)
		}
	}
	res := process(t, p, Request{Data: b64(raw), Limits: Limits{MaxBytes: 20_000}})
	want := "[session:history] omitted image payload: Error: Image could not be reduced below 0MB (got "
	if res.Outcome != Omitted || !strings.HasPrefix(res.Text, want) || !strings.HasSuffix(res.Text, "MB)") {
		t.Fatalf("got %v %q, want an omission starting %q", res.Outcome, res.Text, want)
	}
}

package images

import (
	"bytes"
	"testing"
)

// TestSpecVectors runs the image vectors of spec §5 (V34–V37).
func TestSpecVectors(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 2})

	t.Run("V34 oversize by dimension", func(t *testing.T) {
		src := pattern(3000, 2000, false)
		res := process(t, p, Request{Data: b64(encPNG(t, opaque(src))), MimeType: "image/png"})
		if res.Outcome != Rewritten || res.MimeType != "image/jpeg" {
			t.Fatalf("got %v %q, want rewritten image/jpeg", res.Outcome, res.MimeType)
		}
		if max(res.Width, res.Height) > 1200 || res.Width != 1200 || res.Height != 800 {
			t.Errorf("got %dx%d, want 1200x800", res.Width, res.Height)
		}
		if d := meanAbsDiff(src, decodeOutput(t, res)); d > 6 {
			t.Errorf("mean pixel difference %.2f", d)
		}
	})

	t.Run("V35 invalid base64", func(t *testing.T) {
		res := process(t, p, Request{Data: []byte("not*base64"), MimeType: "image/png"})
		want := "[session:history] omitted image payload: invalid base64"
		if res.Outcome != Omitted || res.Text != want {
			t.Fatalf("got %v %q, want %q", res.Outcome, res.Text, want)
		}
	})

	t.Run("V36 empty", func(t *testing.T) {
		res := process(t, p, Request{Data: []byte("   "), MimeType: "image/png"})
		want := "[session:history] omitted empty image payload"
		if res.Outcome != Omitted || res.Text != want {
			t.Fatalf("got %v %q, want %q", res.Outcome, res.Text, want)
		}
	})

	t.Run("V37 mime fix", func(t *testing.T) {
		data := b64(encJPEG(t, pattern(120, 80, false), 85))
		if !bytes.HasPrefix(data, []byte("/9j/")) {
			t.Fatalf("test JPEG base64 starts %q", data[:4])
		}
		res := process(t, p, Request{Data: data, MimeType: "image/png"})
		if res.Outcome != Unchanged || res.MimeType != "image/jpeg" || res.Data != nil {
			t.Fatalf("got %v %q with %d data bytes, want unchanged data and image/jpeg", res.Outcome, res.MimeType, len(res.Data))
		}
	})
}

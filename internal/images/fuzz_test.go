package images

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
)

// FuzzProcess feeds arbitrary bytes to Process, either as image bytes
// (base64-encoded first) or as the base64 text itself. Every input must
// give an Omitted text, or a valid output within the limits; never an
// error or a panic.
func FuzzProcess(f *testing.F) {
	seeds := [][]byte{
		encPNG(f, pattern(90, 60, true)),
		encPNG(f, pattern(300, 20, false)),
		encJPEG(f, pattern(100, 70, false), 80),
		withEXIFOrientation(encJPEG(f, pattern(90, 50, false), 70), 6),
		encGIF(f, pattern(80, 60, false), 3),
		encWebP(f, encPNG(f, pattern(90, 90, false))),
		pngBomb(50000, 50000),
		[]byte("GIF89a"),
		[]byte("RIFF\x10\x00\x00\x00WEBPVP8 "),
	}
	for _, s := range seeds {
		f.Add(s, false)
	}
	f.Add([]byte("data:image/png;base64,iVBORw0KGgo="), true)
	f.Add([]byte("not*base64"), true)
	p, err := NewProcessor(Config{Workers: 2})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(p.Close)
	lim := Limits{MaxDimensionPx: 64, MaxBytes: 64 << 10, MaxInputPixels: 1 << 20, MaxFrames: 8}
	f.Fuzz(func(t *testing.T, in []byte, asText bool) {
		data := in
		if !asText {
			data = b64(in)
		}
		res, err := p.Process(context.Background(), Request{Data: data, MimeType: "image/png", Limits: lim})
		if err != nil {
			t.Fatalf("Process returned an error: %v", err)
		}
		switch res.Outcome {
		case Omitted:
			if !strings.HasPrefix(res.Text, "[session:history] omitted ") || res.Data != nil {
				t.Fatalf("bad omission: %q", res.Text)
			}
		case Unchanged:
			if res.Data != nil || sniff(mustDecode(t, data)).mime() != res.MimeType {
				t.Fatalf("unchanged result with mime %q", res.MimeType)
			}
		case Rewritten:
			raw, err := base64.StdEncoding.Strict().DecodeString(string(res.Data))
			if err != nil || !bytes.Equal(res.Data, encodeStd(raw)) {
				t.Fatalf("output is not canonical base64: %v", err)
			}
			if sniff(raw).mime() != res.MimeType || len(res.Data) > lim.MaxBytes {
				t.Fatalf("output is %s of %d bytes, result says %s", sniff(raw).mime(), len(res.Data), res.MimeType)
			}
			if h, err := readHeader(raw); err != nil || h.width > 64 && res.Resized || h.height > 64 && res.Resized {
				t.Fatalf("output header %+v, %v", h, err)
			}
		default:
			t.Fatalf("unknown outcome %v", res.Outcome)
		}
	})
}

// mustDecode decodes base64 the way the package canonicalises it.
func mustDecode(t *testing.T, data []byte) []byte {
	t.Helper()
	_, raw, err := canonicalBase64(data)
	if err != nil {
		t.Fatalf("kept data does not decode: %v", err)
	}
	return raw
}

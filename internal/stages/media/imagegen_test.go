package media

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
)

// picture draws a deterministic w×h test image: diagonal colour bands with
// a checker of fine detail, so it neither compresses to nothing nor is pure
// noise. Each variant shifts the bands, so variants differ in every byte.
func picture(w, h, variant int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8((x + 2*y + 17*variant) * 255 / (w + 2*h))
			c := color.RGBA{R: v, G: 255 - v, B: uint8(x * 7 % 256), A: 255}
			if (x/3+y/3)%5 == 0 {
				c.B = uint8(y * 13 % 256)
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func pngBytes(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, picture(w, h, 0)); err != nil {
		tb.Fatalf("encode PNG: %v", err)
	}
	return b.Bytes()
}

func jpegBytes(tb testing.TB, w, h, quality int) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, picture(w, h, 0), &jpeg.Options{Quality: quality}); err != nil {
		tb.Fatalf("encode JPEG: %v", err)
	}
	return b.Bytes()
}

func gifBytes(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := gif.Encode(&b, picture(w, h, 0), nil); err != nil {
		tb.Fatalf("encode GIF: %v", err)
	}
	return b.Bytes()
}

func b64(data []byte) string { return base64.StdEncoding.EncodeToString(data) }

// decodeImage decodes a base64 image and returns its format and size.
func decodeImage(tb testing.TB, data string) (format string, w, h int) {
	tb.Helper()
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		tb.Fatalf("output is not standard base64: %v", err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("output image does not decode: %v", err)
	}
	return format, cfg.Width, cfg.Height
}

// largeImage makes a w×h JPEG or PNG (w and h multiples of 10) by drawing
// a tenth-size picture in Go and enlarging it with libvips: drawing and
// encoding megapixels in Go is slow under the race detector.
func largeImage(tb testing.TB, w, h int, format string) []byte {
	tb.Helper()
	return largeVariant(tb, w, h, format, 0)
}

// largeVariant is largeImage of the given picture variant.
func largeVariant(tb testing.TB, w, h int, format string, variant int) []byte {
	tb.Helper()
	if w%10 != 0 || h%10 != 0 {
		tb.Fatalf("largeImage: %dx%d is not a multiple of 10", w, h)
	}
	var small bytes.Buffer
	if err := png.Encode(&small, picture(w/10, h/10, variant)); err != nil {
		tb.Fatalf("encode PNG: %v", err)
	}
	img, err := vips.NewImageFromBuffer(small.Bytes())
	if err != nil {
		tb.Fatalf("load the small picture: %v", err)
	}
	defer img.Close()
	if err := img.Resize(10, vips.KernelLinear); err != nil {
		tb.Fatalf("enlarge the picture: %v", err)
	}
	if img.Width() != w || img.Height() != h {
		tb.Fatalf("enlarged to %dx%d, want %dx%d", img.Width(), img.Height(), w, h)
	}
	var out []byte
	switch format {
	case "jpeg":
		p := vips.NewJpegExportParams()
		p.Quality = 90
		out, _, err = img.ExportJpeg(p)
	case "png":
		out, _, err = img.ExportPng(vips.NewPngExportParams())
	default:
		tb.Fatalf("largeImage: unknown format %q", format)
	}
	if err != nil {
		tb.Fatalf("encode the %s: %v", format, err)
	}
	return out
}

package images

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
	"golang.org/x/image/draw"
)

// pattern draws a deterministic test picture: smooth gradients, rings and
// a few sharp bars, so resampling and compression both have work to do.
// With alpha, the left third fades to transparent.
func pattern(w, h int, alpha bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			r := math.Hypot(fx-0.5, fy-0.5)
			ring := 0.5 + 0.5*math.Sin(r*40)
			c := color.NRGBA{
				R: uint8(255 * fx),
				G: uint8(255 * fy),
				B: uint8(255 * ring),
				A: 255,
			}
			if (x/(w/8+1))%2 == 0 && fy > 0.8 {
				c.R, c.G, c.B = 20, 20, 20
			}
			if alpha && fx < 1.0/3 {
				c.A = uint8(255 * fx * 3)
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// noisy draws a picture of pseudo-random pixels, which compresses badly.
func noisy(w, h int, seed uint32) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	s := seed | 1
	for i := range img.Pix {
		s ^= s << 13
		s ^= s >> 17
		s ^= s << 5
		img.Pix[i] = uint8(s)
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	return img
}

func encJPEG(t testing.TB, img image.Image, q int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatalf("encode JPEG: %v", err)
	}
	return b.Bytes()
}

func encPNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatalf("encode PNG: %v", err)
	}
	return b.Bytes()
}

// opaque drops the alpha channel so PNG writes colour type 2.
func opaque(img *image.NRGBA) image.Image {
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(out, out.Bounds(), img, image.Point{}, draw.Over)
	return out
}

// encGIF writes frames palettised copies of img, each shifted, as one GIF.
func encGIF(t testing.TB, img image.Image, frames int) []byte {
	t.Helper()
	g := &gif.GIF{}
	b := img.Bounds()
	for i := range frames {
		p := image.NewPaletted(b, palette.Plan9)
		draw.Draw(p, b, img, image.Point{X: i * 7}, draw.Src)
		g.Image = append(g.Image, p)
		g.Delay = append(g.Delay, 10)
	}
	var out bytes.Buffer
	if err := gif.EncodeAll(&out, g); err != nil {
		t.Fatalf("encode GIF: %v", err)
	}
	return out.Bytes()
}

// encWebP converts a PNG to lossy WebP with libvips.
func encWebP(t testing.TB, pngBytes []byte) []byte {
	t.Helper()
	img, err := vips.NewImageFromBuffer(pngBytes)
	if err != nil {
		t.Fatalf("load PNG for WebP: %v", err)
	}
	defer img.Close()
	p := vips.NewWebpExportParams()
	p.Quality = 90
	out, _, err := img.ExportWebp(p)
	if err != nil {
		t.Fatalf("encode WebP: %v", err)
	}
	return out
}

func b64(b []byte) []byte { return []byte(base64.StdEncoding.EncodeToString(b)) }

// pngChunk builds one PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[4:]))
}

// pngBomb is a PNG signature and an IHDR declaring w x h RGBA, with a valid
// CRC and nothing else: no pixel data exists to decode.
func pngBomb(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	return append(append([]byte(nil), pngSignature...), pngChunk("IHDR", ihdr)...)
}

// withEXIFOrientation inserts an APP1 Exif segment with the given
// orientation right after the SOI marker of a JPEG.
func withEXIFOrientation(jpg []byte, orientation uint16) []byte {
	tiff := []byte{'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1}
	tiff = binary.BigEndian.AppendUint16(tiff, 0x0112)
	tiff = binary.BigEndian.AppendUint16(tiff, 3)
	tiff = binary.BigEndian.AppendUint32(tiff, 1)
	tiff = binary.BigEndian.AppendUint16(tiff, orientation)
	tiff = append(tiff, 0, 0, 0, 0, 0, 0)
	seg := append([]byte("Exif\x00\x00"), tiff...)
	app1 := []byte{0xff, 0xe1}
	app1 = binary.BigEndian.AppendUint16(app1, uint16(len(seg)+2))
	app1 = append(app1, seg...)
	out := append([]byte{0xff, 0xd8}, app1...)
	return append(out, jpg[2:]...)
}

// decodeOutput decodes a Rewritten result's base64 with Go's decoders.
func decodeOutput(t testing.TB, r Result) image.Image {
	t.Helper()
	raw, err := base64.StdEncoding.Strict().DecodeString(string(r.Data))
	if err != nil {
		t.Fatalf("output is not canonical base64: %v", err)
	}
	img, name, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("decode output: %v", err)
	}
	if want := map[string]string{"jpeg": "image/jpeg", "png": "image/png"}[name]; want != r.MimeType {
		t.Fatalf("output bytes are %s, MimeType says %s", name, r.MimeType)
	}
	return img
}

// meanAbsDiff scales ref to got's size and returns the mean absolute
// difference per RGB channel (0-255), both composited over white.
func meanAbsDiff(ref, got image.Image) float64 {
	b := got.Bounds()
	scaled := image.NewRGBA(b)
	draw.Draw(scaled, b, image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.CatmullRom.Scale(scaled, b, ref, ref.Bounds(), draw.Over, nil)
	flat := image.NewRGBA(b)
	draw.Draw(flat, b, image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(flat, b, got, b.Min, draw.Over)
	var sum float64
	for i := 0; i < len(flat.Pix); i += 4 {
		for c := range 3 {
			sum += math.Abs(float64(flat.Pix[i+c]) - float64(scaled.Pix[i+c]))
		}
	}
	return sum / float64(len(flat.Pix)/4*3)
}

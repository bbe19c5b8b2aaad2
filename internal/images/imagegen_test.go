package images

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"sync"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
	"golang.org/x/image/draw"
)

// patterns caches generated pictures by size and alpha.
var patterns sync.Map

type patternKey struct {
	w, h  int
	alpha bool
}

// pattern draws a deterministic test picture: gradients, rings and a few
// sharp bars, so resampling and compression both have work to do. With
// alpha, the left third fades to transparent. Callers must not modify it.
func pattern(w, h int, alpha bool) *image.NRGBA {
	k := patternKey{w, h, alpha}
	if img, ok := patterns.Load(k); ok {
		return img.(*image.NRGBA)
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	scale := max(w, h)
	for y := range h {
		dy := (y - h/2) * 1024 / scale
		for x := range w {
			dx := (x - w/2) * 1024 / scale
			ring := (dx*dx + dy*dy) >> 6 & 0x1ff
			if ring > 0xff {
				ring = 0x1ff - ring // triangle wave
			}
			i := img.PixOffset(x, y)
			p := img.Pix[i : i+4 : i+4]
			p[0], p[1], p[2], p[3] = uint8(x*255/w), uint8(y*255/h), uint8(ring), 255
			if (x/(w/8+1))%2 == 0 && y*5 > h*4 {
				p[0], p[1], p[2] = 20, 20, 20
			}
			if alpha && x*3 < w {
				p[3] = uint8(x * 3 * 255 / w)
			}
		}
	}
	patterns.Store(k, img)
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
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
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

// cube is a 6x6x6 colour cube palette; cubeIndex maps a colour onto it
// with arithmetic instead of a nearest-colour search.
var cube = func() color.Palette {
	p := make(color.Palette, 0, 216)
	for r := range 6 {
		for g := range 6 {
			for b := range 6 {
				p = append(p, color.RGBA{uint8(r * 51), uint8(g * 51), uint8(b * 51), 255})
			}
		}
	}
	return p
}()

func cubeIndex(r, g, b uint8) uint8 {
	q := func(v uint8) int { return (int(v) + 25) / 51 }
	return uint8(q(r)*36 + q(g)*6 + q(b))
}

// encGIF writes frames colour-cube copies of img, each shifted by 7 px
// more, as one GIF.
func encGIF(t testing.TB, img *image.NRGBA, frames int) []byte {
	t.Helper()
	g := &gif.GIF{}
	b := img.Bounds()
	for i := range frames {
		p := image.NewPaletted(b, cube)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				sx := min(x+i*7, b.Max.X-1)
				o := img.PixOffset(sx, y)
				p.Pix[p.PixOffset(x, y)] = cubeIndex(img.Pix[o], img.Pix[o+1], img.Pix[o+2])
			}
		}
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

// meanAbsDiff compares got with ref: both are composited over white and
// box-averaged down to at most 96 px on the longest side (so resampling
// details do not count, only what the picture shows), then the mean
// absolute difference per RGB channel (0-255) is returned.
func meanAbsDiff(ref, got image.Image) float64 {
	gb := got.Bounds()
	side := 96
	w, h := side, gb.Dy()*side/gb.Dx()
	if gb.Dy() > gb.Dx() {
		w, h = gb.Dx()*side/gb.Dy(), side
	}
	a, b := boxShrink(flatten(ref), w, h), boxShrink(flatten(got), w, h)
	var sum float64
	for i := range a {
		sum += math.Abs(a[i] - b[i])
	}
	return sum / float64(len(a))
}

// flatten composites img over white into an RGBA image.
func flatten(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Over)
	return out
}

// boxShrink averages img's RGB over a w x h grid of boxes.
func boxShrink(img *image.RGBA, w, h int) []float64 {
	sums := make([]float64, w*h*3)
	counts := make([]float64, w*h)
	iw, ih := img.Rect.Dx(), img.Rect.Dy()
	for y := range ih {
		row := img.Pix[y*img.Stride:]
		ty := y * h / ih
		for x := range iw {
			t := ty*w + x*w/iw
			counts[t]++
			for c := range 3 {
				sums[t*3+c] += float64(row[x*4+c])
			}
		}
	}
	for i := range sums {
		sums[i] /= counts[i/3]
	}
	return sums
}

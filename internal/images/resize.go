package images

import (
	"github.com/davidbyttow/govips/v2/vips"
)

// resized is the outcome of the libvips ladder.
type resized struct {
	data          []byte // encoded image bytes (not base64)
	mime          string
	width, height int
	reason        string // set when no candidate was produced
}

// white is the background alpha images are flattened on for JPEG.
var white = &vips.Color{R: 255, G: 255, B: 255}

// resize runs the side and quality ladder over raw image bytes and returns
// the first candidate whose base64 length fits lim.MaxBytes. It must run on
// an image worker's thread.
func resize(raw []byte, h header, lim Limits) resized {
	smallest := -1
	for _, side := range sides(lim.MaxDimensionPx, h.width, h.height) {
		out, size := resizeAtSide(raw, h.format, side, lim.MaxBytes)
		if out.reason != "" || out.data != nil {
			return out
		}
		if smallest < 0 || size < smallest {
			smallest = size
		}
	}
	return resized{reason: reasonTooLarge(lim.MaxBytes, smallest)}
}

// candidate is one encoding of the ladder at a given side.
type candidate struct {
	png     bool
	quality int
}

// resizeAtSide makes the thumbnail for one side and tries the candidates
// on it: PNG first when it has alpha, then JPEG at each quality. It returns
// the winner, or a zero resized and the smallest base64 length seen.
//
// The thumbnail streams its input once (sequential access, operation cache
// off), so the first candidate is encoded straight from it, which is the
// whole cost in the common case. Only when that candidate is too large is
// the thumbnail made again and kept as decoded pixels for the rest.
func resizeAtSide(raw []byte, f format, side, maxBytes int) (resized, int) {
	img, err := thumbnail(raw, side)
	if err != nil {
		return resized{reason: reasonUndecodable(f)}, 0
	}
	defer img.Close()
	cands := make([]candidate, 0, 1+len(qualities))
	if img.HasAlpha() {
		cands = append(cands, candidate{png: true})
	}
	for _, q := range qualities {
		cands = append(cands, candidate{quality: q})
	}
	smallest := -1
	src := img
	for i, c := range cands {
		if i == 1 {
			mem, err := decodedCopy(raw, side)
			if err != nil {
				return resized{reason: reasonUndecodable(f)}, 0
			}
			defer mem.Close()
			src = mem
		}
		buf, err := encode(src, c)
		if err != nil {
			return resized{reason: reasonUndecodable(f)}, 0
		}
		n := encodedLen(len(buf))
		if n <= maxBytes {
			mime := "image/jpeg"
			if c.png {
				mime = "image/png"
			}
			return resized{data: buf, mime: mime, width: src.Width(), height: src.Height()}, 0
		}
		if smallest < 0 || n < smallest {
			smallest = n
		}
	}
	return resized{}, smallest
}

// thumbnail loads raw shrunk to fit side x side: shrink-on-load, EXIF
// auto-rotation, never enlarged, failing on the first decoder warning.
func thumbnail(raw []byte, side int) (*vips.ImageRef, error) {
	return vips.LoadThumbnailFromBuffer(raw, side, side, vips.InterestingNone, vips.SizeDown, vips.NewImportParams())
}

// decodedCopy makes the thumbnail again and returns it decoded into memory,
// so it can be encoded any number of times. The copy goes through an
// uncompressed 8-bit PNG, which is lossless for the thumbnail's pixels and
// which libvips loads with random access, decoding it once.
func decodedCopy(raw []byte, side int) (*vips.ImageRef, error) {
	img, err := thumbnail(raw, side)
	if err != nil {
		return nil, err
	}
	defer img.Close()
	p := vips.NewPngExportParams()
	p.Compression = 0
	p.Bitdepth = 8
	buf, _, err := img.ExportPng(p)
	if err != nil {
		return nil, err
	}
	return vips.NewImageFromBuffer(buf)
}

// encode writes one candidate, stripped of metadata. For JPEG an alpha
// channel is flattened on white first (on a copy, so src keeps it).
func encode(src *vips.ImageRef, c candidate) ([]byte, error) {
	if c.png {
		p := vips.NewPngExportParams()
		p.StripMetadata = true
		p.Bitdepth = 8
		// libvips 8.14 writes unfiltered rows by default; adaptive filtering
		// makes photographic PNGs several times smaller (a 2000x2000 alpha
		// test image: 3.87 MB unfiltered, 338 KB filtered).
		p.Filter = vips.PngFilterAll
		buf, _, err := src.ExportPng(p)
		return buf, err
	}
	img := src
	if src.HasAlpha() {
		flat, err := src.Copy()
		if err != nil {
			return nil, err
		}
		defer flat.Close()
		if err := flat.Flatten(white); err != nil {
			return nil, err
		}
		img = flat
	}
	buf, _, err := img.ExportJpeg(&vips.JpegExportParams{
		StripMetadata:  true,
		Quality:        c.quality,
		OptimizeCoding: true,
		SubsampleMode:  vips.VipsForeignSubsampleAuto,
	})
	return buf, err
}

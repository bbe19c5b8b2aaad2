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
		out, size, ok := resizeAtSide(raw, side, lim.MaxBytes)
		if ok {
			return out
		}
		if out.reason != "" {
			return resized{reason: out.reason}
		}
		if smallest < 0 || size < smallest {
			smallest = size
		}
	}
	return resized{reason: reasonTooLarge(lim.MaxBytes, smallest)}
}

// resizeAtSide makes the thumbnail for one side and tries the encoders on
// it. It returns the winning candidate, or the smallest base64 length seen.
func resizeAtSide(raw []byte, side, maxBytes int) (resized, int, bool) {
	params := vips.NewImportParams() // fail on the first decoder warning
	img, err := vips.LoadThumbnailFromBuffer(raw, side, side, vips.InterestingNone, vips.SizeDown, params)
	if err != nil {
		return resized{reason: reasonUndecodable(sniff(raw))}, 0, false
	}
	defer img.Close()
	smallest := -1
	try := func(buf []byte, mime string) (resized, bool) {
		n := encodedLen(len(buf))
		if smallest < 0 || n < smallest {
			smallest = n
		}
		if n > maxBytes {
			return resized{}, false
		}
		return resized{data: buf, mime: mime, width: img.Width(), height: img.Height()}, true
	}
	if img.HasAlpha() {
		p := vips.NewPngExportParams()
		p.StripMetadata = true
		p.Bitdepth = 8
		buf, _, err := img.ExportPng(p)
		if err != nil {
			return resized{reason: reasonUndecodable(sniff(raw))}, 0, false
		}
		if out, ok := try(buf, "image/png"); ok {
			return out, 0, true
		}
		if err := img.Flatten(white); err != nil {
			return resized{reason: reasonInternal}, 0, false
		}
	}
	for _, q := range qualities {
		buf, _, err := img.ExportJpeg(&vips.JpegExportParams{
			StripMetadata:  true,
			Quality:        q,
			OptimizeCoding: true,
			SubsampleMode:  vips.VipsForeignSubsampleAuto,
		})
		if err != nil {
			return resized{reason: reasonUndecodable(sniff(raw))}, 0, false
		}
		if out, ok := try(buf, "image/jpeg"); ok {
			return out, 0, true
		}
	}
	return resized{}, smallest, false
}

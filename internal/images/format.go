package images

import (
	"bytes"
	"fmt"
)

// format is an accepted input format.
type format int

const (
	formatUnknown format = iota
	formatJPEG
	formatPNG
	formatGIF
	formatWebP
)

// mime returns the format's MIME type.
func (f format) mime() string {
	switch f {
	case formatJPEG:
		return "image/jpeg"
	case formatPNG:
		return "image/png"
	case formatGIF:
		return "image/gif"
	case formatWebP:
		return "image/webp"
	}
	return ""
}

// name returns the format's name for texts.
func (f format) name() string {
	switch f {
	case formatJPEG:
		return "JPEG"
	case formatPNG:
		return "PNG"
	case formatGIF:
		return "GIF"
	case formatWebP:
		return "WebP"
	}
	return "unknown"
}

var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

// sniff returns the format of b from its magic bytes.
func sniff(b []byte) format {
	switch {
	case len(b) >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff:
		return formatJPEG
	case bytes.HasPrefix(b, pngSignature):
		return formatPNG
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return formatGIF
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return formatWebP
	}
	return formatUnknown
}

// header is what the parsers read before any pixel decode.
type header struct {
	format        format
	width, height int
	frames        int
	// bands and bytesPerSample give the decoded size estimate.
	bands, bytesPerSample int
}

// decodedBytes is the upper bound of the full-size decoded image.
func (h header) decodedBytes() int64 {
	return int64(h.width) * int64(h.height) * int64(h.bands) * int64(h.bytesPerSample)
}

// headerError is a structural fault found by a parser; its Error() is the
// Error string of the omission text. readHeader returns no other error.
type headerError struct{ reason string }

func (e *headerError) Error() string { return e.reason }

// corrupt and truncated build headerErrors with the package's wording.
func corrupt(f format, detail string, args ...any) error {
	return &headerError{reason: "Error: " + f.name() + " image data is corrupt: " + fmt.Sprintf(detail, args...)}
}

func truncated(f format, detail string, args ...any) error {
	return &headerError{reason: "Error: " + f.name() + " image data is truncated: " + fmt.Sprintf(detail, args...)}
}

// errUnsupported is returned for bytes of no accepted format.
var errUnsupported = &headerError{reason: reasonUnsupported}

// readHeader sniffs b and walks its structure. On a structural error the
// header still carries the dimensions when they were read before the fault,
// so the pixel limit can be reported first, as the reference does.
func readHeader(b []byte) (header, error) {
	var (
		h   header
		err error
	)
	switch f := sniff(b); f {
	case formatJPEG:
		h, err = readJPEG(b)
	case formatPNG:
		h, err = readPNG(b)
	case formatGIF:
		h, err = readGIF(b)
	case formatWebP:
		h, err = readWebP(b)
	default:
		return header{}, errUnsupported
	}
	if err != nil {
		return h, err
	}
	if h.width <= 0 || h.height <= 0 {
		return header{}, &headerError{reason: reasonNoDimensions}
	}
	return h, nil
}

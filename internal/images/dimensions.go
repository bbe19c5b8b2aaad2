package images

import (
	"encoding/base64"
	"errors"
	"strings"
)

// headerPrefix is how much base64 Dimensions decodes first: enough for the
// header of nearly every PNG, GIF and WebP, and of a JPEG whose metadata
// before the frame header is under 48 KiB.
const headerPrefix = 64 << 10

// ErrNotBase64 is Dimensions' error for data that is not standard padded
// base64.
var ErrNotBase64 = errors.New("image data is not standard base64")

// Dimensions reads the width and height of an image from its standard
// padded base64 encoding (the form the images stage writes), decoding only
// a prefix unless the header lies further in. It never decodes pixels. An
// image of no supported format, or whose header is corrupt, is an error
// worded as the omission texts word it.
func Dimensions(data []byte) (width, height int, err error) {
	n := min(len(data), headerPrefix)
	n -= n % 4
	buf := make([]byte, base64.StdEncoding.DecodedLen(n))
	m, err := base64.StdEncoding.Decode(buf, data[:n])
	if err != nil {
		return 0, 0, ErrNotBase64
	}
	h, err := readHeader(buf[:m])
	if err != nil && n < len(data) && isTruncated(err) {
		buf = make([]byte, base64.StdEncoding.DecodedLen(len(data)))
		if m, err = base64.StdEncoding.Decode(buf, data); err != nil {
			return 0, 0, ErrNotBase64
		}
		h, err = readHeader(buf[:m])
	}
	if err != nil {
		return 0, 0, err
	}
	return h.width, h.height, nil
}

// isTruncated reports whether a header error says the data ended early.
func isTruncated(err error) bool {
	var he *headerError
	return errors.As(err, &he) && strings.Contains(he.reason, "is truncated")
}

package transport

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/compression"
)

// ContentEncoding returns the value of r's first content-encoding header
// (the key's case ignored), nil when it has none: the encoding
// compression.Decode and compression.IsZstd take.
func (r Record) ContentEncoding() []byte {
	v, _ := r.contentEncoding()
	return v
}

func (r Record) contentEncoding() ([]byte, bool) {
	for _, h := range r.Headers {
		if strings.EqualFold(h.Key, compression.HeaderContentEncoding) {
			return h.Value, true
		}
	}
	return nil, false
}

// Compressed returns r with its value zstd-compressed at level l and the
// header content-encoding: zstd added, when the value is longer than above
// bytes, the record has no content-encoding header yet, and compression
// makes it smaller. Otherwise it returns r unchanged. above < 0 disables
// compression. r's slices are not modified. Sinks call it on every record
// they write.
func (r Record) Compressed(above int, l compression.Level) Record {
	if above < 0 || len(r.Value) <= above {
		return r
	}
	if _, ok := r.contentEncoding(); ok {
		return r
	}
	packed := compression.EncodeAt(r.Value, l)
	if len(packed) >= len(r.Value) {
		return r
	}
	headers := make([]Header, len(r.Headers), len(r.Headers)+1)
	copy(headers, r.Headers)
	r.Headers = append(headers, Header{Key: compression.HeaderContentEncoding, Value: []byte(compression.EncodingZstd)})
	r.Value = packed
	return r
}

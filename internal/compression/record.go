package compression

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// EncodeRecord returns r with its value zstd-compressed and the header
// content-encoding: zstd added, when the value is longer than above bytes,
// the record has no content-encoding header yet, and compression makes it
// smaller. Otherwise it returns r unchanged. above < 0 disables compression.
// r's slices are not modified.
func EncodeRecord(r transport.Record, above int) transport.Record {
	if above < 0 || len(r.Value) <= above {
		return r
	}
	for _, h := range r.Headers {
		if strings.EqualFold(h.Key, HeaderContentEncoding) {
			return r
		}
	}
	packed := Encode(r.Value)
	if len(packed) >= len(r.Value) {
		return r
	}
	headers := make([]transport.Header, len(r.Headers), len(r.Headers)+1)
	copy(headers, r.Headers)
	r.Headers = append(headers, transport.Header{Key: HeaderContentEncoding, Value: []byte(EncodingZstd)})
	r.Value = packed
	return r
}

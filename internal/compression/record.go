package compression

import (
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// EncodeRecord returns r with its value zstd-compressed (at LevelDefault)
// and the header content-encoding: zstd added, when the value is longer
// than above bytes, the record has no content-encoding header yet, and
// compression makes it smaller. Otherwise it returns r unchanged. above < 0
// disables compression. r's slices are not modified.
func EncodeRecord(r transport.Record, above int) transport.Record {
	return EncodeRecordAt(r, above, LevelDefault)
}

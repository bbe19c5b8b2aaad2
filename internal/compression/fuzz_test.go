package compression

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecode checks that Decode never panics, never returns more than the
// limit, fails only with its documented errors, and round-trips Encode.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("plain"), false, int64(100))
	f.Add(Encode([]byte("hello hello hello")), true, int64(100))
	f.Add(Encode(make([]byte, 10000)), false, int64(1000))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0}, false, int64(1<<20))
	f.Fuzz(func(t *testing.T, value []byte, header bool, limit int64) {
		if limit <= 0 || limit > 1<<22 {
			limit = 1 << 16
		}
		var encoding []byte
		if header {
			encoding = zstdHeader
		}
		out, err := Decode(value, encoding, limit)
		if err != nil {
			if !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Decode returned an undocumented error: %v", err)
			}
			return
		}
		if int64(len(out)) > limit {
			t.Fatalf("Decode returned %d bytes over the limit %d", len(out), limit)
		}
		back, err := Decode(Encode(out), zstdHeader, limit)
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("Encode/Decode round trip failed: %v", err)
		}
	})
}

package compression

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// encodeStreamed compresses value through the streaming writer, which does
// not record the frame content size.
func encodeStreamed(t testing.TB, value []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(value); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// flipped returns a copy of frame with its payload bytes (past the frame
// header) inverted, which zstd's block decoding or checksum rejects.
func flipped(frame []byte) []byte {
	out := bytes.Clone(frame)
	for i := 12; i < len(out)-4; i++ {
		out[i] ^= 0xff
	}
	return out
}

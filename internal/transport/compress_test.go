package transport

import (
	"bytes"
	"crypto/rand"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/compression"
)

func TestCompressed(t *testing.T) {
	text := bytes.Repeat([]byte("abc"), 1000)
	random := make([]byte, 3000)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		rec        Record
		above      int
		compressed bool
	}{
		{name: "over the threshold", rec: Record{Value: text}, above: 100, compressed: true},
		{name: "at the threshold", rec: Record{Value: text}, above: len(text), compressed: false},
		{name: "disabled", rec: Record{Value: text}, above: -1, compressed: false},
		{name: "incompressible", rec: Record{Value: random}, above: 100, compressed: false},
		{name: "already encoded", rec: Record{Value: text, Headers: []Header{{Key: "content-encoding", Value: []byte("zstd")}}}, above: 100, compressed: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rec.Key = []byte("k")
			tt.rec.Headers = append(tt.rec.Headers, Header{Key: "trace", Value: []byte("1")})
			got := tt.rec.Compressed(tt.above, compression.LevelDefault)
			enc, has := got.Header(compression.HeaderContentEncoding)
			wasMarked := len(tt.rec.Headers) > 1
			if tt.compressed != (has && !wasMarked) {
				t.Fatalf("compressed = %v, want %v", has && !wasMarked, tt.compressed)
			}
			if !tt.compressed {
				if !bytes.Equal(got.Value, tt.rec.Value) || len(got.Headers) != len(tt.rec.Headers) {
					t.Fatal("record changed though it should not be compressed")
				}
				return
			}
			if string(enc) != compression.EncodingZstd || !bytes.Equal(got.Key, tt.rec.Key) {
				t.Fatalf("header %q, key %q", enc, got.Key)
			}
			if v, _ := got.Header("trace"); string(v) != "1" {
				t.Fatal("existing header lost")
			}
			back, err := compression.Decode(got.Value, got.ContentEncoding(), int64(len(tt.rec.Value)))
			if err != nil || !bytes.Equal(back, tt.rec.Value) {
				t.Fatalf("round trip failed: %v", err)
			}
		})
	}
}

package compression

import (
	"bytes"
	"crypto/rand"
	"errors"
	"runtime"
	"testing"
)

// zstdHeader is the content-encoding header value of a zstd value.
var zstdHeader = []byte(EncodingZstd)

func TestDecode(t *testing.T) {
	plain := bytes.Repeat([]byte(`{"role":"user","content":"hello"}`), 1000)
	packed := Encode(plain)
	random := make([]byte, 4096)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		value    []byte
		encoding []byte
		max      int64
		want     []byte
		wantErr  error
	}{
		{name: "plain value passes through", value: plain, max: int64(len(plain)), want: plain},
		{name: "plain value over the limit", value: plain, max: 10, wantErr: ErrTooLarge},
		{name: "zstd by header", value: packed, encoding: zstdHeader, max: 1 << 20, want: plain},
		{name: "zstd by magic without header", value: packed, max: 1 << 20, want: plain},
		{name: "zstd encoding in other case", value: packed, encoding: []byte("ZSTD"), max: 1 << 20, want: plain},
		{name: "zstd exactly at the limit", value: packed, encoding: zstdHeader, max: int64(len(plain)), want: plain},
		{name: "zstd one byte over the limit", value: packed, encoding: zstdHeader, max: int64(len(plain)) - 1, wantErr: ErrTooLarge},
		{name: "zstd header on plain bytes", value: random, encoding: zstdHeader, max: 1 << 20, wantErr: ErrCorrupt},
		{name: "flipped bytes inside the frame", value: flipped(packed), max: 1 << 20, wantErr: ErrCorrupt},
		{name: "truncated frame", value: packed[:len(packed)/2], encoding: zstdHeader, max: 1 << 20, wantErr: ErrCorrupt},
		{name: "identity encoding", value: plain, encoding: []byte("identity"), max: 1 << 20, want: plain},
		{name: "gzip is not supported", value: plain, encoding: []byte("gzip"), max: 1 << 20, wantErr: ErrUnsupportedEncoding},
		{name: "empty zstd value", value: Encode(nil), encoding: zstdHeader, max: 1, want: []byte{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(tt.value, tt.encoding, tt.max)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Decode error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("Decode returned %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
}

func TestDecodeRejectsNonPositiveLimit(t *testing.T) {
	if _, err := Decode([]byte("x"), nil, 0); err == nil {
		t.Fatal("Decode with limit 0 succeeded, want an error")
	}
}

// TestDecodeBombStaysBounded decodes 64 MiB of zeros packed into a few KiB
// with a 1 MiB limit: it must fail naming the limit, and allocate far less
// than the bomb's size.
func TestDecodeBombStaysBounded(t *testing.T) {
	const bombSize = 64 << 20
	const limit = 1 << 20
	bomb := Encode(make([]byte, bombSize))
	if len(bomb) > 64<<10 {
		t.Fatalf("bomb is %d bytes, expected a tiny frame", len(bomb))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Decode(bomb, zstdHeader, limit)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Decode(bomb) error = %v, want ErrTooLarge", err)
	}
	if !bytes.Contains([]byte(err.Error()), []byte("1048576")) {
		t.Fatalf("error %q does not name the limit", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*limit {
		t.Fatalf("Decode(bomb) allocated %d bytes, want at most %d", alloc, 8*limit)
	}
}

// TestDecodeStreamedBombWithoutContentSize covers a frame that does not
// declare its content size, so the limit is enforced while decoding.
func TestDecodeStreamedBombWithoutContentSize(t *testing.T) {
	bomb := encodeStreamed(t, make([]byte, 64<<20))
	if _, err := Decode(bomb, nil, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Decode error = %v, want ErrTooLarge", err)
	}
}

func TestEncodeAddsMagic(t *testing.T) {
	if !IsZstd(Encode([]byte("hello")), nil) {
		t.Fatal("Encode output does not start with the zstd magic")
	}
}

func BenchmarkDecode(b *testing.B) {
	plain := bytes.Repeat([]byte(`{"role":"assistant","content":[{"type":"text","text":"ok"}]}`), 4096)
	packed := Encode(plain)
	b.ReportAllocs()
	b.SetBytes(int64(len(plain)))
	for b.Loop() {
		if _, err := Decode(packed, zstdHeader, 64<<20); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	plain := bytes.Repeat([]byte(`{"role":"assistant","content":[{"type":"text","text":"ok"}]}`), 4096)
	b.ReportAllocs()
	b.SetBytes(int64(len(plain)))
	for b.Loop() {
		Encode(plain)
	}
}

// TestPooledDecoderRecoversAfterErrors alternates corrupt, oversized and
// valid frames so pooled decoders are reused after every kind of failure.
func TestPooledDecoderRecoversAfterErrors(t *testing.T) {
	plain := bytes.Repeat([]byte("transcript "), 5000)
	packed := Encode(plain)
	for i := range 20 {
		if _, err := Decode(flipped(packed), zstdHeader, 1<<20); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("round %d: corrupt frame = %v", i, err)
		}
		if _, err := Decode(encodeStreamed(t, plain), zstdHeader, 100); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("round %d: oversized frame = %v", i, err)
		}
		got, err := Decode(packed, zstdHeader, 1<<20)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("round %d: valid frame after failures: %v", i, err)
		}
	}
}

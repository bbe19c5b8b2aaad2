package images

import (
	"encoding/binary"
	"strings"
	"testing"
)

// riff builds a WebP file from chunks.
func riff(chunks ...[]byte) []byte {
	var body []byte
	for _, c := range chunks {
		body = append(body, c...)
	}
	out := []byte("RIFF")
	out = binary.LittleEndian.AppendUint32(out, uint32(4+len(body)))
	out = append(out, "WEBP"...)
	return append(out, body...)
}

// webpChunk builds one RIFF chunk, padded to even length.
func webpChunk(typ string, data []byte) []byte {
	out := append([]byte(typ), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
	out = append(out, data...)
	if len(data)%2 == 1 {
		out = append(out, 0)
	}
	return out
}

// vp8x is a VP8X body for a w x h canvas with the animation flag.
func vp8x(w, h int) []byte {
	d := []byte{0x02, 0, 0, 0}
	d = append(d, byte(w-1), byte((w-1)>>8), byte((w-1)>>16))
	return append(d, byte(h-1), byte((h-1)>>8), byte((h-1)>>16))
}

// vp8l is a VP8L bitstream header for w x h.
func vp8l(w, h int) []byte {
	v := uint32(w-1) | uint32(h-1)<<14
	return append([]byte{0x2f}, binary.LittleEndian.AppendUint32(nil, v)...)
}

func TestReadHeader(t *testing.T) {
	apng := pngBomb(300, 200)
	apng = append(apng, pngChunk("acTL", []byte{0, 0, 0, 12, 0, 0, 0, 0})...)
	apng = append(apng, pngChunk("IDAT", []byte{1})...)
	apng = append(apng, pngChunk("IEND", nil)...)
	rgbPNG := encPNG(t, opaque(pattern(10, 10, false)))
	tests := []struct {
		name    string
		in      []byte
		want    header
		wantErr string
	}{
		{"JPEG", encJPEG(t, pattern(321, 123, false), 80), header{formatJPEG, 321, 123, 1, 3, 1}, ""},
		{"PNG RGBA", encPNG(t, pattern(40, 30, true)), header{formatPNG, 40, 30, 1, 4, 1}, ""},
		{"PNG RGB", rgbPNG, header{formatPNG, 10, 10, 1, 3, 1}, ""},
		{"APNG frames", apng, header{formatPNG, 300, 200, 12, 4, 1}, ""},
		{"GIF frames", encGIF(t, pattern(50, 40, false), 4), header{formatGIF, 50, 40, 4, 4, 1}, ""},
		{"WebP lossy", encWebP(t, encPNG(t, pattern(77, 55, false))), header{formatWebP, 77, 55, 1, 4, 1}, ""},
		{"WebP lossless", riff(webpChunk("VP8L", vp8l(640, 480))), header{formatWebP, 640, 480, 1, 4, 1}, ""},
		{"WebP animated", riff(webpChunk("VP8X", vp8x(5000, 4000)), webpChunk("ANIM", make([]byte, 6)),
			webpChunk("ANMF", make([]byte, 17)), webpChunk("ANMF", make([]byte, 17)), webpChunk("ANMF", make([]byte, 16))),
			header{formatWebP, 5000, 4000, 3, 4, 1}, ""},
		{"WebP without image", riff(webpChunk("VP8X", vp8x(10, 10))), header{}, "Error: WebP image data is corrupt: no image chunk"},
		{"WebP short RIFF", riff(webpChunk("VP8L", vp8l(10, 10)))[:20], header{}, "Error: WebP image data is truncated"},
		{"GIF frame past the screen", gifFramePastScreen(), header{formatGIF, 4000, 300, 1, 4, 1}, ""},
		{"GIF without trailer", encGIF(t, pattern(8, 8, false), 1)[:30], header{}, "Error: GIF image data is truncated"},
		{"PNG IHDR not first", append(append([]byte(nil), pngSignature...), pngChunk("IDAT", nil)...), header{}, "Error: PNG image data is corrupt: IHDR is not the first chunk"},
		{"PNG without IDAT", append(pngBomb(2, 2), pngChunk("IEND", nil)...), header{}, "Error: PNG image data is corrupt: no IDAT"},
		{"JPEG without frame", []byte{0xff, 0xd8, 0xff, 0xda, 0, 2, 0xff, 0xd9}, header{}, "Error: JPEG image data is corrupt: no frame header"},
		{"JPEG zero height", jpegZeroHeight(t), header{}, reasonNoDimensions},
		{"unknown", []byte("II*\x00tiff"), header{}, reasonUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := readHeader(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("readHeader: %v", err)
			}
			if h != tc.want {
				t.Errorf("header %+v, want %+v", h, tc.want)
			}
		})
	}
}

// gifFramePastScreen is a 100x100 GIF whose single frame is placed at
// x=3000 with size 1000x300.
func gifFramePastScreen() []byte {
	b := []byte("GIF89a")
	b = binary.LittleEndian.AppendUint16(b, 100)
	b = binary.LittleEndian.AppendUint16(b, 100)
	b = append(b, 0, 0, 0, 0x2c)
	for _, v := range []uint16{3000, 0, 1000, 300} {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return append(b, 0, 2, 1, 0, 0, 0x3b)
}

// jpegZeroHeight sets the SOF height of a JPEG to 0 (a DNL-style header).
func jpegZeroHeight(t *testing.T) []byte {
	b := encJPEG(t, pattern(16, 16, false), 80)
	for i := 2; i+9 < len(b); i++ {
		if b[i] == 0xff && b[i+1] == 0xc0 {
			b[i+5], b[i+6] = 0, 0
			return b
		}
	}
	t.Fatal("no SOF0 in the test JPEG")
	return nil
}

func TestSides(t *testing.T) {
	tests := []struct {
		maxDim, w, h int
		want         []int
	}{
		{1200, 4000, 3000, []int{1200, 1000, 800}},
		{1200, 1100, 5000, []int{1200, 1000, 800}},
		{2000, 1900, 100, []int{1900, 1800, 1600, 1400, 1200, 1000, 800}},
		{500, 4000, 3000, []int{500}},
		{1200, 900, 100, []int{900, 800}},
		{1200, 700, 300, []int{700}},
	}
	for _, tc := range tests {
		got := sides(tc.maxDim, tc.w, tc.h)
		if len(got) != len(tc.want) {
			t.Errorf("sides(%d, %d, %d) = %v, want %v", tc.maxDim, tc.w, tc.h, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("sides(%d, %d, %d) = %v, want %v", tc.maxDim, tc.w, tc.h, got, tc.want)
				break
			}
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 25_000_000: "25,000,000", -1234567: "-1,234,567"} {
		if got := thousands64(n); got != want {
			t.Errorf("thousands64(%d) = %q, want %q", n, got, want)
		}
	}
}

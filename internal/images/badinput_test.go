package images

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
)

func TestProcessBadAndOddInput(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 2})
	smallPNG := encPNG(t, pattern(64, 48, false))
	smallJPEG := encJPEG(t, pattern(64, 48, false), 85)
	bigJPEG := encJPEG(t, pattern(3000, 2000, false), 90)
	std := base64.StdEncoding.EncodeToString(smallPNG)
	// A JPEG whose entropy-coded data is overwritten but whose structure is
	// intact: only the decoder can tell.
	garbled := append([]byte(nil), bigJPEG...)
	for i := len(garbled) / 3; i < len(garbled)/3+4000; i++ {
		garbled[i] = 0xff
	}
	// A PNG whose structure is intact but whose IDAT stream is not zlib.
	badIDAT := append(append([]byte(nil), pngBomb(640, 480)...), pngChunk("IDAT", bytes.Repeat([]byte{0x42}, 64))...)
	badIDAT = append(badIDAT, pngChunk("IEND", nil)...)
	badIDAT = bytes.Replace(badIDAT, pngBomb(640, 480)[8:], pngBomb(1600, 480)[8:], 1)
	loose, looseCanon := nonZeroTrailingBits(smallJPEG)
	label := "[session:history] "
	tests := []struct {
		name     string
		data     string
		mime     string
		limits   Limits
		outcome  Outcome
		wantMime string
		wantData string // exact output data for Rewritten
		wantText string // exact text, or prefix ending in "…"
	}{
		{name: "zero bytes", data: "", outcome: Omitted, wantText: label + "omitted empty image payload"},
		{name: "whitespace only", data: " \n\t\r  ", outcome: Omitted, wantText: label + "omitted empty image payload"},
		{name: "data prefix only", data: "data:image/png;base64,", outcome: Omitted, wantText: label + "omitted empty image payload"},
		{name: "invalid character", data: "not*base64", outcome: Omitted, wantText: label + "omitted image payload: invalid base64"},
		{name: "three pads", data: "QUJD===", outcome: Omitted, wantText: label + "omitted image payload: invalid base64"},
		{name: "pad in the middle", data: "QU=JD", outcome: Omitted, wantText: label + "omitted image payload: invalid base64"},
		{name: "length 1 mod 4", data: "QUJDR", outcome: Omitted, wantText: label + "omitted image payload: invalid base64"},
		{name: "mixed alphabets", data: "ab+c-d__", outcome: Omitted, wantText: label + "omitted image payload: invalid base64"},
		{name: "data URL not base64", data: "data:image/png,abcd", outcome: Omitted, wantText: label + "omitted image payload: invalid base64"},
		{name: "not an image", data: base64.StdEncoding.EncodeToString([]byte("hello, this is text")), outcome: Omitted,
			wantText: label + "omitted image payload: Error: Input buffer contains unsupported image format"},
		{name: "BMP is not accepted", data: base64.StdEncoding.EncodeToString(append([]byte("BM"), make([]byte, 60)...)), outcome: Omitted,
			wantText: label + "omitted image payload: Error: Input buffer contains unsupported image format"},
		{name: "truncated JPEG", data: base64.StdEncoding.EncodeToString(bigJPEG[:len(bigJPEG)/2]), outcome: Omitted,
			wantText: label + "omitted image payload: Error: JPEG image data is truncated: no end-of-image marker after the scan"},
		{name: "truncated JPEG header", data: base64.StdEncoding.EncodeToString(smallJPEG[:20]), outcome: Omitted,
			wantText: label + "omitted image payload: Error: JPEG image data is truncated: …"},
		{name: "garbled JPEG scan", data: base64.StdEncoding.EncodeToString(garbled), outcome: Omitted,
			wantText: label + "omitted image payload: Error: Image data could not be decoded as JPEG"},
		{name: "truncated PNG", data: base64.StdEncoding.EncodeToString(smallPNG[:len(smallPNG)-20]), outcome: Omitted,
			wantText: label + "omitted image payload: Error: PNG image data is truncated: …"},
		{name: "PNG with a bad CRC", data: base64.StdEncoding.EncodeToString(flipByte(smallPNG, 40)), outcome: Omitted,
			wantText: label + "omitted image payload: Error: PNG image data is corrupt: chunk …"},
		{name: "PNG with a bad IDAT stream", data: base64.StdEncoding.EncodeToString(badIDAT), outcome: Omitted,
			wantText: label + "omitted image payload: Error: Image data could not be decoded as PNG"},
		{name: "pixel bomb 50000x50000", data: base64.StdEncoding.EncodeToString(pngBomb(50000, 50000)), outcome: Omitted,
			wantText: label + "omitted image payload: Error: Image dimensions exceed the 25,000,000 pixel input limit: 50000x50000 (2500000000 pixels)"},
		{name: "pixel limit from config", data: base64.StdEncoding.EncodeToString(smallPNG), limits: Limits{MaxInputPixels: 1000}, outcome: Omitted,
			wantText: label + "omitted image payload: Error: Image dimensions exceed the 1,000 pixel input limit: 64x48 (3072 pixels)"},
		{name: "base64 over the input limit", data: std, limits: Limits{MaxBase64Bytes: 100}, outcome: Omitted,
			wantText: label + "omitted image payload: Error: Image payload of " + strconv.Itoa(len(std)) + " base64 bytes exceeds the 100 byte input limit"},
		{name: "too many frames", data: base64.StdEncoding.EncodeToString(encGIF(t, pattern(32, 32, false), 70)), outcome: Omitted,
			wantText: label + "omitted image payload: Error: Image has 70 frames, over the 64 frame input limit"},
		{name: "canonical PNG declared PNG", data: std, mime: "image/png", outcome: Unchanged, wantMime: "image/png"},
		{name: "lying mimeType", data: std, mime: "image/jpeg", outcome: Unchanged, wantMime: "image/png"},
		{name: "data URL prefix", data: "data:image/jpeg;base64," + std, mime: "image/png", outcome: Rewritten, wantMime: "image/png", wantData: std},
		{name: "URL-safe unpadded", data: strings.TrimRight(base64.URLEncoding.EncodeToString(smallPNG), "="), mime: "image/png",
			outcome: Rewritten, wantMime: "image/png", wantData: std},
		{name: "line-wrapped", data: wrap(std, 76), mime: "image/png", outcome: Rewritten, wantMime: "image/png", wantData: std},
		{name: "non-zero trailing bits", data: loose, mime: "image/jpeg", outcome: Rewritten, wantMime: "image/jpeg", wantData: looseCanon},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := process(t, p, Request{Data: []byte(tc.data), MimeType: tc.mime, Limits: tc.limits})
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome %v, want %v (text %q)", res.Outcome, tc.outcome, res.Text)
			}
			if prefix, ok := strings.CutSuffix(tc.wantText, "…"); ok {
				if !strings.HasPrefix(res.Text, prefix) {
					t.Errorf("text %q, want a text starting %q", res.Text, prefix)
				}
			} else if res.Text != tc.wantText {
				t.Errorf("text %q, want %q", res.Text, tc.wantText)
			}
			if res.MimeType != tc.wantMime {
				t.Errorf("mime %q, want %q", res.MimeType, tc.wantMime)
			}
			if tc.outcome == Rewritten && string(res.Data) != tc.wantData {
				t.Errorf("data is not the canonical base64 of the input")
			}
			if tc.outcome == Omitted && (res.Data != nil || res.BytesOut != 0) {
				t.Errorf("omitted result carries data (%d bytes, BytesOut %d)", len(res.Data), res.BytesOut)
			}
		})
	}
}

func TestProcessDecodeBudget(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 1, MaxDecodedBytes: 1 << 20})
	res := process(t, p, Request{Data: b64(encJPEG(t, pattern(2000, 1000, false), 80))})
	want := "[session:history] omitted image payload: Error: Image needs 6000000 decoded bytes, over the 1,048,576 byte decode budget"
	if res.Outcome != Omitted || res.Text != want {
		t.Fatalf("got %v %q, want %q", res.Outcome, res.Text, want)
	}
}

func TestProcessLabel(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 1})
	res := process(t, p, Request{Data: []byte("  "), Label: "tool:read"})
	if want := "[tool:read] omitted empty image payload"; res.Text != want {
		t.Fatalf("text %q, want %q", res.Text, want)
	}
}

func flipByte(b []byte, i int) []byte {
	out := append([]byte(nil), b...)
	out[i] ^= 0x01
	return out
}

func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\r\n")
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// nonZeroTrailingBits pads b with zero bytes after its end until base64
// needs padding, encodes it, and sets the unused low bits of the last
// digit, which lenient decoders accept. It returns that text and the
// canonical encoding of the same bytes.
func nonZeroTrailingBits(b []byte) (string, string) {
	b = append([]byte(nil), b...)
	for len(b)%3 != 1 {
		b = append(b, 0)
	}
	canon := base64.StdEncoding.EncodeToString(b)
	s := []byte(canon)
	i := bytes.IndexByte(s, '=') - 1
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	s[i] = alphabet[strings.IndexByte(alphabet, s[i])|1]
	return string(s), canon
}

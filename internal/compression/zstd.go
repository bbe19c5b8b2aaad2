package compression

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// HeaderContentEncoding is the record header that names a value's encoding.
const HeaderContentEncoding = "content-encoding"

// EncodingZstd is the HeaderContentEncoding value of a zstd-compressed value.
const EncodingZstd = "zstd"

// zstdMagic is the first four bytes of every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// minWindow is the smallest decoder window zstd allows.
const minWindow = zstd.MinWindowSize

// readChunk is how much decoded output Decode asks for at a time.
const readChunk = 32 << 10

var (
	// ErrTooLarge reports a value whose (decompressed) size is over the caller's limit.
	ErrTooLarge = errors.New("value is larger than the limit")
	// ErrCorrupt reports a value marked or detected as zstd that does not decode.
	ErrCorrupt = errors.New("zstd data is corrupt")
	// ErrUnsupportedEncoding reports a content-encoding header other than zstd.
	ErrUnsupportedEncoding = errors.New("content-encoding is not supported")
)

// IsZstd reports whether value is to be decoded as zstd: its
// content-encoding header (encoding, nil when there is none) says zstd, or
// the value starts with the zstd frame magic.
func IsZstd(value, encoding []byte) bool {
	return strings.EqualFold(string(encoding), EncodingZstd) || bytes.HasPrefix(value, zstdMagic)
}

// Decode returns value decompressed when it is zstd (see IsZstd; encoding
// is the value of its content-encoding header, nil when there is none),
// else value itself. Either way the result is at most maxBytes long, or
// Decode fails with ErrTooLarge. An encoding other than zstd, "identity" or
// "" fails with ErrUnsupportedEncoding; undecodable zstd fails with
// ErrCorrupt. maxBytes must be positive.
func Decode(value, encoding []byte, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		return nil, fmt.Errorf("compression: the decompressed size limit must be positive, got %d", maxBytes)
	}
	if enc := string(encoding); enc != "" && !strings.EqualFold(enc, EncodingZstd) && !strings.EqualFold(enc, "identity") {
		return nil, fmt.Errorf("compression: %w: %q (only zstd is)", ErrUnsupportedEncoding, encoding)
	}
	if !IsZstd(value, encoding) {
		if int64(len(value)) > maxBytes {
			return nil, fmt.Errorf("compression: %w: the value is %d bytes, the limit is %d", ErrTooLarge, len(value), maxBytes)
		}
		return value, nil
	}
	return decodeZstd(value, maxBytes)
}

// decoders holds synchronous stream decoders (concurrency 1: no goroutines),
// reset with the caller's limits on each use.
var decoders = sync.Pool{New: func() any {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		panic(fmt.Sprintf("compression: the zstd decoder options are invalid: %v", err))
	}
	return dec
}}

// decodeZstd streams value through a pooled decoder into a buffer that
// never grows past maxBytes+1. A frame that declares a content size over the
// limit fails before decoding; the window is capped by the limit too.
func decodeZstd(value []byte, maxBytes int64) ([]byte, error) {
	tooLarge := fmt.Errorf("compression: %w: the zstd value decompresses to more than %d bytes", ErrTooLarge, maxBytes)
	initial := min(int64(len(value))*4+readChunk, maxBytes+1)
	var hdr zstd.Header
	if err := hdr.Decode(value); err == nil && hdr.HasFCS {
		if hdr.FrameContentSize > uint64(maxBytes) {
			return nil, tooLarge
		}
		initial = int64(hdr.FrameContentSize) + 1 // +1 detects a frame that lies about its size
	}

	window := uint64(max(maxBytes, minWindow))
	dec := decoders.Get().(*zstd.Decoder)
	defer func() {
		_ = dec.Reset(nil)
		decoders.Put(dec)
	}()
	if err := dec.ResetWithOptions(bytes.NewReader(value), zstd.WithDecoderMaxWindow(window), zstd.WithDecoderMaxMemory(window)); err != nil {
		return nil, fmt.Errorf("compression: %w: %v", ErrCorrupt, err)
	}

	out := make([]byte, 0, initial)
	for {
		if len(out) == cap(out) {
			if int64(len(out)) > maxBytes {
				return nil, tooLarge
			}
			grown := make([]byte, len(out), min(int64(cap(out))*2, maxBytes+1))
			copy(grown, out)
			out = grown
		}
		n, err := dec.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
				return nil, fmt.Errorf("compression: %w: the zstd window needs more than %d bytes", ErrTooLarge, maxBytes)
			}
			return nil, fmt.Errorf("compression: %w: %v", ErrCorrupt, err)
		}
	}
	if int64(len(out)) > maxBytes {
		return nil, tooLarge
	}
	return out, nil
}

// Encode returns value compressed at LevelDefault as one zstd frame that
// records its content size.
func Encode(value []byte) []byte { return EncodeAt(value, LevelDefault) }

// Package compression encodes and decodes record values with zstd. It
// takes a value's bytes and its content-encoding header's value; the
// record-level step, Record.Compressed, is package transport's.
//
// A value is zstd-compressed when its record carries the header
// "content-encoding: zstd" or when it starts with the zstd frame magic
// (28 B5 2F FD). Decoding is bounded: the caller passes the largest
// decompressed size it accepts, and a value that would expand past it (a
// "zstd bomb") fails with ErrTooLarge before more than that many bytes of
// output, plus one zstd window capped by the same limit, are allocated.
// Corrupt input fails with ErrCorrupt; an encoding other than zstd fails with
// ErrUnsupportedEncoding. The three errors map to the dead-letter codes
// payload_too_large and decompression_failed.
//
// May import: no package of this module.
package compression

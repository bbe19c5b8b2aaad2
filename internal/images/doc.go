// Package images sanitises the base64 image blocks of a transcript (spec
// transcript-hygiene.md §3.3): it canonicalises the base64, sniffs the real
// format, enforces input limits from the header before any pixel is decoded,
// keeps images that already fit, and otherwise brings them within bounds with
// libvips (through govips), or replaces them with the spec's omission text.
//
// # Pipeline of one Request
//
//  1. Input bound: a payload longer than Limits.MaxBase64Bytes is omitted
//     before any other work.
//  2. Base64: a "data:<mime>;base64," prefix and every byte <= 0x20 are
//     removed; the standard and the URL-safe alphabet are both accepted (not
//     mixed), padding is optional but at most two '=' at the end. An empty
//     payload gives "[<label>] omitted empty image payload"; anything else
//     that does not decode gives "[<label>] omitted image payload: invalid
//     base64". Output base64 is always standard and padded. (The spec's
//     canonicaliser accepts the standard alphabet only; URL-safe and
//     unpadded input are accepted here on purpose and rewritten.)
//  3. Sniffing and header: the format comes from the decoded bytes only
//     (JPEG, PNG, GIF and WebP; every other format is omitted, which also
//     keeps the rest of libvips' loaders out of reach of untrusted input).
//     A small parser per format reads width, height and the frame count and
//     walks the container structure (JPEG segments up to the scan and an EOI
//     marker, PNG chunks with their CRCs up to IEND, GIF blocks up to the
//     trailer, WebP RIFF chunks), so corrupt and truncated files are caught
//     without decoding pixels. The declared mimeType is never trusted.
//  4. Limits from the header: width*height against MaxInputPixels (checked
//     first, even when the rest of the file is missing, as the reference
//     reads it from the header), frames against MaxFrames, and the decoded
//     size estimate against the processor's whole decode budget. MaxFrames
//     defaults to 64: only the first frame is ever decoded, but a kept
//     animation is sent on to the provider whole, and 64 frames covers
//     ordinary GIF screen recordings while refusing the frame-count bombs
//     that make providers and viewers decode thousands of frames.
//  5. Keep (spec step 4): both sides <= MaxDimensionPx and the base64 length
//     <= MaxBytes. Unchanged when the canonical base64 equals the input,
//     with MimeType set to the sniffed type (the caller rewrites only the
//     mime when it differs); Rewritten when the base64 was not canonical.
//     A kept image's pixels are never decoded (the reference only reads
//     metadata too): its structure is checked, but damage inside the
//     compressed pixel data of a kept image is not detected.
//  6. Resize: libvips thumbnail from the buffer (shrink-on-load, EXIF
//     auto-rotation, fit inside side x side, never enlarge) over the spec's
//     side ladder and the qualities 85, 75, 65, 55, 45, 35; the first
//     candidate whose base64 length fits MaxBytes wins. Sides above the
//     image's own longest side are skipped, since a thumbnail never
//     enlarges and they would repeat the same candidates. Decoder warnings
//     count as failures, so a truncated or damaged scan is Omitted.
//
// # Output format
//
// The spec writes JPEG only. This package writes PNG when the thumbnail has
// an alpha channel and that PNG (8 bits per sample, compression 6) fits
// MaxBytes at the current side, because flattening throws the transparency
// away; otherwise the image is flattened on white and written as baseline
// JPEG with optimised Huffman tables and automatic chroma subsampling. An
// animated GIF or WebP becomes its first frame. Every output is stripped of
// metadata (EXIF, XMP, IPTC, ICC). With libvips concurrency 1 the same input
// and limits give the same output bytes.
//
// # Omission texts
//
// Omitted results carry "[<label>] omitted image payload: <Error string>",
// where the error string follows the reference implementation's
// String(Error) form, for example
// "Error: Image could not be reduced below 5MB (got 7.12MB)" or
// "Error: Image dimensions exceed the 25,000,000 pixel input limit: 50000x50000 (2500000000 pixels)".
// The texts never carry libvips' own error buffer, which is shared between
// threads and would make the text depend on what else was running.
//
// # Resources
//
// Decoding runs on the Processor's own worker pool, separate from any job
// pool: a job task waits for an image worker, never for a slot of its own
// pool. The pool is bounded by worker count and by an estimate of decoded
// bytes (width*height*bands*bytes-per-sample of the full input, an upper
// bound: shrink-on-load usually decodes far less). Each worker owns a locked
// OS thread, starts libvips (Startup) before its first image, and calls
// vips.ShutdownThread before it exits. Results are kept
// in a content-addressed LRU cache bounded in bytes: the key is the
// SHA-256 of the input base64 plus the tenant, the limits, the declared
// mime and the label (the last two change the Result too). Entries are
// never shared across tenants, and results handed out are copies.
//
// May import: internal/images/lazyvips.
package images

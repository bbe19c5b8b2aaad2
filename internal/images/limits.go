package images

// Default limits (spec §3.3 and the worker's own input bounds).
const (
	DefaultMaxDimensionPx = 1200
	DefaultMaxBytes       = 5 * 1024 * 1024
	DefaultMaxInputPixels = 25_000_000
	DefaultMaxBase64Bytes = 64 * 1024 * 1024
	DefaultMaxFrames      = 64
)

// Limits bound one image. A zero or negative field means its default.
type Limits struct {
	// MaxDimensionPx is the longest side after resizing; default 1200.
	MaxDimensionPx int
	// MaxBytes is the maximum base64 length of the output, since providers
	// count the base64 string; default 5,242,880.
	MaxBytes int
	// MaxInputPixels bounds width*height as read from the header, before
	// any pixel decode; default 25,000,000.
	MaxInputPixels int
	// MaxBase64Bytes bounds the input base64 length accepted at all;
	// default 64 MiB.
	MaxBase64Bytes int
	// MaxFrames bounds the frames of an animated GIF, WebP or APNG;
	// default 64.
	MaxFrames int
}

// DefaultLimits returns the spec's limits.
func DefaultLimits() Limits {
	return Limits{
		MaxDimensionPx: DefaultMaxDimensionPx,
		MaxBytes:       DefaultMaxBytes,
		MaxInputPixels: DefaultMaxInputPixels,
		MaxBase64Bytes: DefaultMaxBase64Bytes,
		MaxFrames:      DefaultMaxFrames,
	}
}

// withDefaults replaces every zero or negative field by its default.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxDimensionPx <= 0 {
		l.MaxDimensionPx = d.MaxDimensionPx
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxInputPixels <= 0 {
		l.MaxInputPixels = d.MaxInputPixels
	}
	if l.MaxBase64Bytes <= 0 {
		l.MaxBase64Bytes = d.MaxBase64Bytes
	}
	if l.MaxFrames <= 0 {
		l.MaxFrames = d.MaxFrames
	}
	return l
}

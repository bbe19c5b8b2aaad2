package images

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultLabel is the label of the omission texts when Request.Label is empty.
const DefaultLabel = "session:history"

// emptyText is the exact spec text for an empty payload.
func emptyText(label string) string {
	return "[" + label + "] omitted empty image payload"
}

// omittedText is the exact spec template "[<label>] omitted image payload: <reason>".
func omittedText(label, reason string) string {
	return "[" + label + "] omitted image payload: " + reason
}

// reasonInvalidBase64 is the exact spec reason for a payload that is not base64.
const reasonInvalidBase64 = "invalid base64"

// reasonUnsupported is the reason for bytes that are none of the accepted formats.
const reasonUnsupported = "Error: Input buffer contains unsupported image format"

// reasonNoDimensions is the reason for a header that declares a zero side.
const reasonNoDimensions = "Error: Unable to determine image dimensions; refusing to process"

// reasonPixels is the spec's pixel-limit error.
func reasonPixels(limit, w, h int) string {
	return fmt.Sprintf("Error: Image dimensions exceed the %s pixel input limit: %dx%d (%d pixels)",
		thousands(limit), w, h, int64(w)*int64(h))
}

// reasonBase64Size is the reason for a payload over Limits.MaxBase64Bytes.
func reasonBase64Size(limit, got int) string {
	return fmt.Sprintf("Error: Image payload of %d base64 bytes exceeds the %s byte input limit", got, thousands(limit))
}

// reasonFrames is the reason for an animation over Limits.MaxFrames.
func reasonFrames(limit, got int) string {
	return fmt.Sprintf("Error: Image has %d frames, over the %d frame input limit", got, limit)
}

// reasonDecodeBudget is the reason for an image whose decoded size alone is
// over the processor's whole decode budget.
func reasonDecodeBudget(budget, need int64) string {
	return fmt.Sprintf("Error: Image needs %d decoded bytes, over the %s byte decode budget", need, thousands64(budget))
}

// reasonUndecodable is the reason when libvips cannot decode the pixels.
func reasonUndecodable(f format) string {
	return "Error: Image data could not be decoded as " + f.name()
}

// reasonTooLarge is the spec's error when no candidate fits maxBytes.
func reasonTooLarge(maxBytes, got int) string {
	return fmt.Sprintf("Error: Image could not be reduced below %sMB (got %.2fMB)", mb0(maxBytes), float64(got)/(1024*1024))
}

// reasonInternal is the reason when processing failed for a cause that is
// not the image's fault (a recovered panic or an encoder failure).
const reasonInternal = "Error: Image processing failed inside the image worker"

// mb0 formats bytes as whole MiB, like toFixed(0).
func mb0(n int) string {
	return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 0, 64)
}

// thousands formats n with comma separators, like toLocaleString("en-US").
func thousands(n int) string { return thousands64(int64(n)) }

func thousands64(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

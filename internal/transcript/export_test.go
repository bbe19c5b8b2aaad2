package transcript

// SameTranscript reports what differs between two decodes of one input (see
// sameTranscript), for the package's external tests.
func SameTranscript(a, b *Transcript) error { return sameTranscript(a, b) }

package transcript

// SameTranscript reports what differs between two decodes of one input (see
// sameTranscript), for the package's external tests.
func SameTranscript(a, b *Transcript) error { return sameTranscript(a, b) }

// ReadFacts is what m holds, read from its members and blocks rather than
// from the decode's record, for the package's external tests.
func ReadFacts(m *Message) Facts { return m.currentFacts() }

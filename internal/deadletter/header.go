package deadletter

// Dead-letter record headers (design §2).
const (
	HeaderErrorCode = "hygiene-error-code"
	HeaderError     = "hygiene-error"
	HeaderStage     = "hygiene-stage"
	HeaderSource    = "hygiene-source"
	// HeaderOriginalBytes and HeaderOriginalSHA256 mark a stand-in dead
	// letter: the original value was too large for the dead-letter topic,
	// so the value holds only its first bytes; these give the original's
	// length and its sha256 (hex).
	HeaderOriginalBytes  = "hygiene-original-bytes"
	HeaderOriginalSHA256 = "hygiene-original-sha256"
)

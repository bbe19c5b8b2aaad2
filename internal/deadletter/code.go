package deadletter

// Code is a dead-letter code of design §2: why a job became a dead letter
// (a decode failure, a stage's refusal, the processor's or runner's own).
// It is the one type of the codes, in Outcomes, headers and metrics. A job
// that comes out ready has no code: "ready" is an outcome, not a Code.
type Code string

// The decode error codes.
const (
	CodeInvalidJSON     Code = "invalid_json"      // not JSON, or nested too deep
	CodeInvalidJob      Code = "invalid_job"       // JSON, but not a job: a field is missing or has the wrong type
	CodeInvalidTarget   Code = "invalid_target"    // the target names no provider and no API (a session whose no assistant turn names one, and no --target)
	CodePayloadTooLarge Code = "payload_too_large" // over the configured bytes or messages per job, or the target's request size
)

// The dead-letter codes of a job that decoded but cannot be sent to its
// target (the final stages, package stages/sendable).
const (
	CodeEmptyHistory Code = "empty_history" // no message, or no user turn, is left to send
	CodeUnsendable   Code = "unsendable"    // the sanitized transcript breaks the target's contract
	// CodeContextOverflow: the request's tokens with the output it reserves
	// are over the target model's context window, and options.context_fit
	// is refuse, or even what the fit always keeps is over it.
	CodeContextOverflow Code = "context_overflow"
)

// The dead-letter codes of the processor and the runner: the record's
// compression could not be read, a bug (a stage's error or panic), the
// output over the record size.
const (
	CodeDecompressionFailed Code = "decompression_failed"
	CodeInternalError       Code = "internal_error"
	CodeOutputTooLarge      Code = "output_too_large"
)

// CodeUnreadable is the code of an input whose bytes could not be read at
// all: a session file that cannot be opened or read (permissions, an I/O
// error, a file gone since it was found). No job is there to judge, so only
// the commands that read files give it (`worker replay`, `worker audit`);
// the Kafka worker always holds its record's bytes and never does.
const CodeUnreadable Code = "unreadable"

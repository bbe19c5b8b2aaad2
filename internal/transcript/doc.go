// Package transcript is the message model of spec §1 and the minimal-copy
// codec that reads jobs and session files and writes ready payloads.
//
// # Model
//
// A Transcript is one provider request context: the job envelope (job_id,
// tenant, session_id, target, options, custom_entries) and its message list.
// Every Message and content Block is a JSON object kept as its members in
// their original order, each value as raw bytes that alias the input buffer.
// Unknown members and unknown block types survive untouched; the roles,
// block types (legacy aliases included) and the id fields the rules need
// have named constants and accessors in model.go.
//
// A message's content has one accessor set (ContentString and
// SetContentString, Blocks and SetBlocks, and the member accessors on
// "content"), and every read sees every earlier write, whichever accessor
// made it; editing a block a rule holds edits the message. Rules never
// flush anything, and reads change nothing a reader can see (the one
// thing a read keeps, a long escaped string it decoded, is published
// atomically): a rule run over chunks of messages may read any message.
//
// # Minimal copy
//
// The raw-JSON codec is package jsontape, below this one. Decoding a job is
// a single validating pass of its scanner over the input: it checks the
// JSON grammar and the nesting limit, splits the envelope, and, in the same
// pass, records each message, its content blocks and their members on a
// tape: flat arrays of spans of the input, with no pointer, so the
// collector never scans a history's structure (issue 22). A Message or
// Block is a view of its tape entry; a rule's first write to one copies its
// members beside the tape (the values still alias the input). Anything
// deeper (a tool input, a nested result) is split only when a rule asks for
// it. A message or block that no rule changed is written back as its
// original bytes, so untouched messages are byte-identical to the input.
// Changed messages are re-encoded member by member, and even then every
// member value that was not replaced (a 1 MB base64 image, say) is copied
// from the input as it was. Base64 image data is never decoded or copied by
// this package; UnquoteBytes returns a sub-slice of the input when the JSON
// string has no escapes, and a string is decoded only when the pass saw an
// escape in it.
//
// # Determinism
//
// The output is a pure function of the input bytes and the edits: members
// keep their order, new members are appended, and strings are encoded one
// way (AppendString: only what JSON requires is escaped; HTML characters are
// not; invalid UTF-8 becomes U+FFFD).
//
// # Invalid text
//
// Invalid UTF-8 inside a string and lone UTF-16 surrogate escapes are
// accepted, not an invalid_json dead letter: the scanner marks the message
// (HasInvalidText) and the text-repair rule rewrites those strings with
// U+FFFD (RepairText). Checking costs nothing on the fast path: UTF-8 was
// validated already, and only \uD8xx–\uDFxx escapes are looked at twice.
//
// # Errors and limits
//
// A malformed job is an *Error value with a dead-letter Code and a path
// (`messages[41].content[2]`, `options`, `tenant`), never a panic. Limits
// (bytes per job, messages per job, nesting depth) come from config; the
// scanner recurses at most MaxDepth levels, so a job nested a million arrays
// deep fails fast with deadletter.CodeInvalidJSON.
//
// # Why a scanner and not a JSON library
//
// Measured with BenchmarkCodec (a 10 MB job: text, thinking, tool calls and
// results, two 1 MB base64 images; decode + encode with nothing changed),
// on 2026-12-02 on a quiet 2-core Xeon, Go 1.26, one core:
//
//	go test -run '^$' -bench Codec -benchtime 30x -cpu 1 -benchmem ./internal/transcript
//
//	transcript             12.2-14.7 ms/op   712-858 MB/s   6.0 MB/op        43 allocs/op
//	transcript-released    10.3-14.8 ms/op   709-1015 MB/s  1.5 MB/op        37 allocs/op
//	transcript-touch-all   16.8-17.5 ms/op   598-626 MB/s   5.8 MB/op        42 allocs/op
//	encoding/json         187-212   ms/op    50-56 MB/s   39.0 MB/op   549,493 allocs/op
//	goccy/go-json          49-58    ms/op   180-216 MB/s  31.1 MB/op   272,206 allocs/op
//
// The scanner is about 13x faster than an encoding/json round trip with
// 1/13,000 of the allocations, and 3.5x faster than goccy/go-json;
// "released" returns the tapes to the pool after each job, as the worker
// does, and "touch-all" is the same job with every message and content
// array read as the rules do. Libraries that build a tree (or a map) must
// re-encode every message and lose byte identity; sonic and simdjson-go
// need amd64-specific assembly and still produce trees. What bounds the
// scanner (its string scan, 8 bytes at a time) is in bench/README.md,
// "What bounds each goal not met".
//
// May import: internal/deadletter, internal/transcript/jsontape,
// internal/uncleared.
package transcript

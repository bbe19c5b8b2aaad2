// Package jsontape is the raw-JSON codec below the message model (package
// transcript): a validating scanner, the tape a job's messages are recorded
// on in one pass, the parallel split of a long message array, the string
// codec (decode only what has escapes; encode only what JSON requires) and
// the raw Object a rule edits a nested value with.
//
// A Tape's arrays hold no pointer: per message, content block and member,
// a span of the input and a few flags, in flat arrays, so the collector
// does not scan a history's structure, and reading a tape never changes it
// (any goroutine may read any message). The model keeps its edits beside
// the tape and writes untouched values as their input bytes. The arrays
// are reused across jobs from a pool (Tape.Release, MaxPooledBytes).
//
// The scan steps over a string's plain bytes in two ways, which give the
// same results byte for byte (TestScanPathsAgree, FuzzScanPaths): eight
// bytes a step in scalar Go (words.go), or, built with GOEXPERIMENT=simd
// on amd64 and run on a CPU with AVX2, 64-byte blocks of vector compares
// with simd/archsimd, a bitmask of the block's quotes, backslashes and
// control bytes (run_simd.go), with UTF-8 checked a run at a time. The
// image and the release binary are built with the experiment; a plain
// build runs the scalar scan.
//
// It imports only the standard library.
//
// May import: no package of this module.
package jsontape

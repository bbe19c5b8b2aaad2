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
// The scan also records, while the bytes are in cache, what rules would
// otherwise read the input again for: a message's role and stop reason
// and a block's type by number (KindValues), which common keys a node has
// (Node.Keys), whether a message's usage is whole already and a tool
// name needs no renaming (Node.Marks), and of
// the strings rules ask it of, whether their ends are plain (PlainStart:
// not blank; PlainEnds: not padded with white space). A rule's pass over a
// long history then reads the tape, which is far smaller than the input.
//
// The scan reads strings in two ways, which give the same results byte
// for byte (TestScanPathsAgree, FuzzScanPaths): a byte at a time with
// plain bytes eight a step in scalar Go (words.go), or, built with
// GOEXPERIMENT=simd on amd64 and run on a CPU with AVX2, from a
// structural index (index_simd.go): per 64-byte block, vector compares
// with simd/archsimd give bitmasks of its quotes, backslashes, control
// bytes and bytes of 0x80 and above, the backslash runs give the escaped
// bytes (carried from block to block), and a string's end is its first
// quote not escaped, its checks the bits below it, with UTF-8 validated
// on vectors in each block that holds a byte of 0x80 and above
// (utf8_simd.go). A plain string that ends in the
// block read last (most keys and short values: the members of a message
// mostly share a block) is read from that block's bitmasks alone, in code
// the member loop inlines (strCached). A string with an error or a
// surrogate escape is read a byte at a time on both, so the errors are
// the same. The image and the release binary are built with the
// experiment; a plain build runs the scalar scan.
//
// It imports only the standard library, and internal/uncleared for the
// tape's arrays.
//
// May import: internal/uncleared.
package jsontape

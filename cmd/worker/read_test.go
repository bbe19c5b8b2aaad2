package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAllSized: readAll reads every byte whatever its size hint (the
// file's size, or 0 for a pipe), in reads of any length, and a file read
// with its exact size is one allocation of that size.
func TestReadAllSized(t *testing.T) {
	text := strings.Repeat("0123456789", 1000)
	for _, hint := range []int64{0, 1, 511, int64(len(text)) - 1, int64(len(text)), int64(len(text)) + 100} {
		for name, r := range map[string]io.Reader{"whole": strings.NewReader(text), "one byte": iotest.OneByteReader(strings.NewReader(text))} {
			got, err := readAll(r, hint)
			if err != nil || !bytes.Equal(got, []byte(text)) {
				t.Fatalf("hint %d, %s reads: %d bytes, %v", hint, name, len(got), err)
			}
		}
	}
	r := strings.NewReader(text)
	allocs := testing.AllocsPerRun(10, func() { r.Reset(text); _, _ = readAll(r, int64(len(text))) })
	if allocs != 1 {
		t.Fatalf("%v allocations for a read of known size, want 1", allocs)
	}
	if _, err := readAll(iotest.ErrReader(io.ErrUnexpectedEOF), 10); err != io.ErrUnexpectedEOF {
		t.Fatalf("error %v, want the reader's", err)
	}
}

//go:build !unix

package main

import "os"

// mapInput maps nothing where there is no mmap: readInput reads the file.
func mapInput(*os.File, int64) ([]byte, bool) { return nil, false }

// unmapInput has nothing to release.
func unmapInput([]byte) {}

//go:build unix

package main

import (
	"os"
	"syscall"
)

// mapInput maps the first size bytes of f read-only and privately, and
// reports whether it could. `worker sanitize` keeps its whole input until
// the payload's last byte is written (the tape and every string of the job
// are spans of it), so a read copied it into the Go heap beside the page
// cache's copy of the same file: the mapping is the page cache's pages
// themselves, clean pages the kernel can drop and read again under memory
// pressure, and outside the Go heap, so the collector neither counts them
// against its goal (twice what is live) nor against the job's memory limit
// (memlimit.ForJob holds what the runtime holds once the input is in).
//
// The mapping is never unmapped: the job's strings alias it as they alias a
// read buffer, and the process ends with its job (one mapping per command
// run in process, as `worker check` and the tests run them). A file cut
// short while it is mapped faults on the next read of its lost pages and
// ends the process: a job file is not written while it is sanitized.
func mapInput(f *os.File, size int64) ([]byte, bool) {
	if int64(int(size)) != size {
		return nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false
	}
	return data, true
}

// unmapInput releases a mapping of mapInput that nothing aliases.
func unmapInput(data []byte) { _ = syscall.Munmap(data) }

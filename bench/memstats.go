package main

import "runtime"

// totalAlloc is the bytes this process has allocated on the heap so far.
func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

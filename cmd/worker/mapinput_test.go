package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// A job file of minMappedInput bytes or more is mapped, not copied into the
// Go heap (its copy beside the page cache's was 1x of the input in the
// collector's count), and reads the same bytes; a zstd file that large is
// still decompressed; a file over the limit is still refused.
func TestReadInputMapsLargeFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mmap")
	}
	dir := t.TempDir()
	text := []byte(strings.Repeat(`{"role":"user","content":"a line of a long history"},`, 3*minMappedInput/52))
	path := filepath.Join(dir, "job.json")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := readInput(path, nil, 1<<30)
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(got, text) {
		t.Fatalf("read %d bytes (%v), want the file's %d", len(got), err, len(text))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
		t.Fatalf("reading a %d-byte file allocated %d bytes in the Go heap, want it mapped", len(text), alloc)
	}

	noise := make([]byte, 2*minMappedInput) // incompressible: its zstd frame stays over minMappedInput
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	zpath := filepath.Join(dir, "job.json.zst")
	if err := os.WriteFile(zpath, compression.Encode(noise), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(zpath); st.Size() < minMappedInput {
		t.Fatalf("the zstd file is %d bytes, under minMappedInput", st.Size())
	}
	if got, err := readInput(zpath, nil, 1<<30); err != nil || !bytes.Equal(got, noise) {
		t.Fatalf("zstd: %d bytes (%v), want the %d decompressed", len(got), err, len(noise))
	}
	if _, err := readInput(path, nil, int64(len(text)-1)); err == nil || !strings.Contains(err.Error(), "max_job_bytes") {
		t.Fatalf("a file over the limit: %v, want refused", err)
	}
}

// `worker sanitize` writes the same payload for a job mapped from a file
// as for the same bytes read from standard input.
func TestSanitizeMappedInputSameAsRead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mmap")
	}
	var job []byte
	for n := 1000; len(job) < 2*minMappedInput; n *= 2 {
		_, job = sessiongen.New(sessiongen.Config{Seed: 7, Messages: n, ToolCallDensity: 0.6, Damage: sessiongen.Realistic(),
			Target: transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}, RealLengthIDs: true}).Job(0)
	}
	path := filepath.Join(t.TempDir(), "job.json")
	if err := os.WriteFile(path, job, 0o644); err != nil {
		t.Fatal(err)
	}
	code, mapped, errOut := runCLI(t, "", "sanitize", path)
	if code != exitOK {
		t.Fatalf("mapped: exit %d: %s", code, errOut)
	}
	code, read, errOut := runCLI(t, string(job), "sanitize", "-")
	if code != exitOK {
		t.Fatalf("read: exit %d: %s", code, errOut)
	}
	if mapped != read {
		t.Fatalf("the payloads differ: %d bytes mapped, %d read", len(mapped), len(read))
	}
}

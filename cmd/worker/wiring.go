package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// newProcessor wires the job processor every command shares: the image
// pool and cache sized from cfg (libvips starts with the first image a
// job holds, see images.Startup), and the default
// rule chain, with the helpers that split large histories
// (pipeline.fanout_workers, sized on GOMAXPROCS), which also decode and
// encode large jobs in chunks. observe (may be nil) gives the function told each
// stage's duration (pipeline.Deps.Observe). The
// returned func releases the image pool.
func newProcessor(cfg config.Config, observe func(string) func(time.Duration)) (*pipeline.Processor, *images.Processor, func(), error) {
	imgs, err := images.NewProcessor(cfg.Images.Config)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("starting the image pool: %w", err)
	}
	fan := fanout.New(cfg.Pipeline.FanoutPoolSize(runtime.GOMAXPROCS(0)), cfg.Pipeline.FanoutMinMessages).WithMinBytes(cfg.Pipeline.FanoutMinBytes)
	proc := pipeline.NewProcessor(cfg.Limits, pipeline.ResolverFor(cfg), pipeline.Deps{Stages: stages.Default(imgs), Observe: observe, Fanout: fan})
	return proc, imgs, imgs.Close, nil
}

// limitsOf is the decode limits of cfg.
func limitsOf(cfg config.Config) transcript.Limits {
	return transcript.Limits{MaxBytes: int(cfg.Limits.MaxJobBytes), MaxMessages: cfg.Limits.MaxMessages, MaxDepth: cfg.Limits.MaxDepth}
}

// recordOf wraps input bytes as a record, as if read from the jobs topic.
func recordOf(value []byte) transport.Record {
	return transport.Record{Value: value, Topic: "stdin", Offset: -1}
}

// readInput reads a file ("" or "-" for stdin), at most maxBytes after zstd
// decompression (a .zst file or zstd magic is decompressed). A regular file
// of at least minMappedInput bytes is mapped read-only (mapInput), not
// copied into the Go heap: see mapInput for why and what it costs.
func readInput(path string, stdin io.Reader, maxBytes int64) ([]byte, error) {
	var r io.Reader = stdin
	name := "standard input"
	size := int64(0) // the file's size when known
	if path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r, name = f, path
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		if size >= minMappedInput && size <= maxBytes {
			if data, ok := mapInput(f, size); ok {
				return mappedJob(data, name, maxBytes)
			}
		}
	}
	data, err := readAll(io.LimitReader(r, maxBytes+1), min(size, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > maxBytes && !compression.IsZstd(data, nil) {
		return nil, fmt.Errorf("%s is larger than limits.max_job_bytes (%d)", name, maxBytes)
	}
	if compression.IsZstd(data, nil) {
		if data, err = compression.Decode(data, nil, maxBytes); err != nil {
			return nil, fmt.Errorf("decompressing %s: %w", name, err)
		}
	}
	return data, nil
}

// minMappedInput is the least file size readInput maps instead of reading
// (mapInput): below it a read costs less than the mapping's page faults,
// and a small job's copy is nothing to save.
const minMappedInput = 1 << 20

// mappedJob is readInput's answer for a file mapped whole (data): the
// mapping itself, or, for a zstd file, its decompression (a new buffer),
// the mapping then released.
func mappedJob(data []byte, name string, maxBytes int64) ([]byte, error) {
	if !compression.IsZstd(data, nil) {
		return data, nil
	}
	decoded, err := compression.Decode(data, nil, maxBytes)
	unmapInput(data)
	if err != nil {
		return nil, fmt.Errorf("decompressing %s: %w", name, err)
	}
	return decoded, nil
}

// readAll is io.ReadAll into a buffer sized for size bytes: a file read
// whole is one allocation of its size, not the doubling buffers of
// io.ReadAll (about twice the file, live at once as it grows, for a large
// job). A reader longer than size grows it as io.ReadAll would.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1) // one byte more, so the end is read without growing
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// interleaved reorders args so that flags may follow positional arguments
// ("worker sanitize job.json --target x" works as users expect).
func interleaved(fs *flag.FlagSet, args []string) []string {
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(flags, positional...)
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// firstLine keeps the first line of a message (stack traces stay in logs).
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

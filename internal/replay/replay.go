// Package replay repairs archived OpenClaw sessions offline: it walks
// directories of session files (.jsonl, .jsonl.zst), reads each one as the
// runtime's session-file repair does (malformed lines dropped and counted,
// the file never modified), runs the same pipeline as the Kafka worker, and
// delivers one ready payload per session to a directory (written atomically:
// temp file, fsync, rename) or one job per session to the jobs topic.
//
// A checkpoint file records every session whose output is durable, so an
// interrupted run resumes where it stopped (Options.Resume) and Ctrl-C never
// leaves a half-written payload or a checkpoint that claims unfinished work.
// A file that cannot be read, decompressed or parsed, or that meets a bug (a
// panic: internal_error), is named in the Summary and the other sessions
// are still processed. A session that does not come out ready has the code
// the Kafka worker would give its job (package deadletter), and one that
// cannot be read at all has deadletter.CodeUnreadable; being ready is an
// outcome, counted apart from the codes.
//
// May import: internal/compression, internal/deadletter, internal/pipeline,
// internal/transcript.
package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Output makes one session's result durable.
type Output interface {
	// Deliver writes the outcome of session f. t is the decoded session
	// (its job form), out its processed outcome (zero in job mode).
	Deliver(ctx context.Context, f SessionFile, t *transcript.Transcript, out pipeline.Outcome) error
}

// Options configure a replay.
type Options struct {
	Inputs []string
	// Target, when set, overrides each session's own target (its last
	// assistant turn's provider, api and model). It is required with From.
	Target *transcript.Target
	// From, when set, names the request format (package wire) of sessions
	// logged as provider request bodies, one a line, instead of OpenClaw
	// session files (see decodeBodies).
	From string
	// Tenant is written into every job and payload ("offline" by default).
	Tenant         string
	Concurrency    int
	Resume         bool
	CheckpointPath string
	Limits         transcript.Limits
	// Process runs the pipeline; nil means job mode (sessions are delivered
	// as jobs for the Kafka workers, unprocessed).
	Process func(context.Context, *transcript.Transcript) (pipeline.Outcome, error)
	Output  Output
	// Progress receives the progress display (nil: none); Terminal picks a
	// live bar over plain lines.
	Progress io.Writer
	Terminal bool
}

// Failure names a session that did not produce a ready payload, and why.
type Failure struct {
	Path   string
	Code   deadletter.Code // the worker's code, or unreadable
	Reason string          // the dead letter's sentence
}

// Summary is what a replay did.
type Summary struct {
	Found         int // session files found
	Skipped       int // finished in an earlier run (resume)
	Delivered     int // sessions that came out ready: their payloads (or jobs) written
	RepairedLines int // malformed lines dropped, all sessions
	RepairedFiles int // sessions with at least one dropped line
	Changed       int // sessions whose payload differs from the input
	BytesIn       int64
	DeadLetters   map[deadletter.Code]int // the other sessions, by code (each one in Failures)
	Failures      []Failure
	Interrupted   bool
	Remaining     int // sessions not started or not finished when interrupted
	Elapsed       time.Duration
}

// Run replays every session file found under opts.Inputs.
func Run(ctx context.Context, opts Options) (Summary, error) {
	start := time.Now()
	opts.Limits = opts.Limits.WithDefaults()
	sum := Summary{DeadLetters: map[deadletter.Code]int{}}
	files, err := Discover(opts.Inputs)
	if err != nil {
		return sum, err
	}
	sum.Found = len(files)
	cp, err := OpenCheckpoint(opts.CheckpointPath, opts.Resume)
	if err != nil {
		return sum, err
	}
	defer cp.Close()
	var todo []SessionFile
	var total int64
	for _, f := range files {
		if opts.Resume && cp.Done(f) {
			sum.Skipped++
			continue
		}
		todo = append(todo, f)
		total += f.Size
	}
	prog := newProgress(opts.Progress, opts.Terminal, len(todo), total)
	defer prog.finish()

	workers := max(opts.Concurrency, 1)
	jobs := make(chan SessionFile)
	var mu sync.Mutex
	var firstErr error
	finished := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				res, err := replayOne(ctx, opts, f)
				if err != nil {
					if ctx.Err() == nil {
						mu.Lock()
						firstErr = cmpErr(firstErr, err)
						mu.Unlock()
					}
					continue
				}
				if res.ready {
					// Only delivered sessions are finished: a failed one is
					// tried (and reported) again by a resumed run.
					if err := cp.Record(f); err != nil {
						mu.Lock()
						firstErr = cmpErr(firstErr, err)
						mu.Unlock()
						continue
					}
				}
				mu.Lock()
				finished++
				sum.add(f, res)
				mu.Unlock()
				prog.done(f.Size)
			}
		}()
	}
feed:
	for _, f := range todo {
		select {
		case jobs <- f:
		case <-ctx.Done():
			break feed
		}
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			break
		}
	}
	close(jobs)
	wg.Wait()
	sort.Slice(sum.Failures, func(i, j int) bool { return sum.Failures[i].Path < sum.Failures[j].Path })
	sum.Elapsed = time.Since(start)
	if finished < len(todo) {
		sum.Remaining = len(todo) - finished
		sum.Interrupted = ctx.Err() != nil
	}
	return sum, firstErr
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// result is how one session ended: ready, or not with a code and the
// sentence.
type result struct {
	ready        bool
	code         deadletter.Code
	reason       string
	droppedLines int
	changed      bool
}

func (s *Summary) add(f SessionFile, r result) {
	s.BytesIn += f.Size
	s.RepairedLines += r.droppedLines
	if r.droppedLines > 0 {
		s.RepairedFiles++
	}
	if r.ready {
		s.Delivered++
		if r.changed {
			s.Changed++
		}
		return
	}
	s.DeadLetters[r.code]++
	s.Failures = append(s.Failures, Failure{Path: f.Path, Code: r.code, Reason: r.reason})
}

// replayOne reads, decodes, processes and delivers one session. Bad input
// is a result; an error means the output could not be made durable (or the
// run was interrupted) and the session is not recorded as finished. A panic
// (a bug, wherever it happens) is this session's internal_error failure:
// the run goes on with the other files, and a resumed run tries it again.
func replayOne(ctx context.Context, opts Options, f SessionFile) (res result, err error) {
	phase := pipeline.StageDecode // then the runner's, past the pipeline
	defer func() {
		if r := recover(); r != nil {
			out := pipeline.Recovered(phase, r)
			res, err = result{code: out.Code, reason: deadletter.Sentence(out.Error), droppedLines: res.droppedLines}, nil
		}
	}()
	data, err := ReadSession(f.Path, int64(opts.Limits.MaxBytes))
	if err != nil {
		return result{code: ReadCode(err), reason: err.Error()}, nil
	}
	target := transcript.Target{Provider: "unset"}
	if opts.Target != nil {
		target = *opts.Target
	}
	decode := transcript.DecodeSession
	if opts.From != "" {
		decode = func(data []byte, target transcript.Target, lim transcript.Limits) (*transcript.Transcript, error) {
			return decodeBodies(data, f.Rel, opts.From, target, lim)
		}
	}
	t, err := decode(data, target, opts.Limits)
	if err != nil {
		return result{code: transcript.ErrorCode(err), reason: err.Error()}, nil
	}
	res = result{droppedLines: t.Repair.DroppedLines}
	if opts.Target == nil && opts.From == "" {
		tg, ok := LastAssistantTarget(t)
		if !ok {
			res.code, res.reason = deadletter.CodeInvalidTarget, "no assistant turn names a provider or api; pass --target"
			return res, nil
		}
		t.SetTarget(tg)
	}
	t.Tenant = opts.Tenant
	var out pipeline.Outcome
	if opts.Process != nil {
		if out, err = opts.Process(ctx, t); err != nil {
			return res, err
		}
		if !out.Ready {
			res.code, res.reason = out.Code, deadletter.Sentence(out.Error)
			return res, nil
		}
		res.changed = out.Report != nil && out.Report.Changed
	}
	phase = pipeline.StageRunner
	if err := opts.Output.Deliver(ctx, f, t, out); err != nil {
		return res, fmt.Errorf("delivering %s: %w", f.Path, err)
	}
	res.ready = true
	return res, nil
}

// The errors of ReadSession that are the worker's codes: the bytes are there
// but their compression cannot be read, or they are over the job limit.
var (
	errDecompress = errors.New("decompression failed")
	errTooLarge   = errors.New("too large")
)

// ReadCode is the code of a ReadSession error: the worker's for a file
// whose bytes it would refuse (decompression_failed, payload_too_large),
// unreadable for one whose bytes cannot be read.
func ReadCode(err error) deadletter.Code {
	switch {
	case errors.Is(err, errDecompress):
		return deadletter.CodeDecompressionFailed
	case errors.Is(err, errTooLarge):
		return deadletter.CodePayloadTooLarge
	}
	return deadletter.CodeUnreadable
}

// ReadSession reads a session file (or a job file), decompressing .zst (or
// zstd-magic) files, bounded by maxBytes after decompression; ReadCode is
// the code of its error. `worker replay` and `worker audit` read with it.
func ReadSession(path string, maxBytes int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".zst") || compression.IsZstd(data, nil) {
		out, err := compression.Decode(data, nil, maxBytes)
		switch {
		case errors.Is(err, compression.ErrTooLarge) || (err != nil && int64(len(data)) > maxBytes):
			// Over the limit decompressed, or cut off while read: the
			// worker's code for a value over limits.max_job_bytes.
			return nil, fmt.Errorf("%w: %v", errTooLarge, err)
		case err != nil:
			return nil, fmt.Errorf("%w: %v", errDecompress, err)
		}
		return out, nil
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("%w: the file is larger than limits.max_job_bytes (%d)", errTooLarge, maxBytes)
	}
	return data, nil
}

// LastAssistantTarget takes the target from the session's last assistant
// turn that names a provider or an api, skipping OpenClaw's stand-in turns
// (transcript.IsStandIn: a delivery mirror or a gateway-injected row names
// no model the session talked to). `worker replay` and `worker sanitize`
// use it when --target is absent.
func LastAssistantTarget(t *transcript.Transcript) (transcript.Target, bool) {
	for i := len(t.Messages) - 1; i >= 0; i-- {
		m := t.Messages[i]
		if m.Role() != transcript.RoleAssistant || transcript.IsStandIn(m) {
			continue
		}
		provider, _ := m.String("provider")
		api, _ := m.String("api")
		model, _ := m.String("model")
		if provider != "" || api != "" {
			return transcript.Target{Provider: provider, API: api, Model: model}, true
		}
	}
	return transcript.Target{}, false
}

// DirOutput writes each ready payload to Dir under the session's relative
// path, with .ready.json in place of .jsonl, atomically.
type DirOutput struct{ Dir string }

// Deliver writes the payload: temp file in the same directory, fsync,
// rename. A reader never sees a half-written payload.
func (d DirOutput) Deliver(_ context.Context, f SessionFile, _ *transcript.Transcript, out pipeline.Outcome) error {
	dst := filepath.Join(d.Dir, outputName(f.Rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return WriteFileAtomic(dst, append(out.Payload, '\n'))
}

// WriteFileAtomic writes data to path through a synced temp file and a
// rename.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	werr := tmp.Chmod(0o644)
	if werr == nil {
		_, werr = tmp.Write(data)
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

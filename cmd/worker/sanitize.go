package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/memlimit"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/replay"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

const sanitizeHelp = `usage: worker sanitize [FILE|-] [--target PROVIDER/API/MODEL] [--render messages|request] [--config FILE]

Reads one job (JSON; see README, "Job format") from FILE or standard input ("-" or no FILE)
and writes its ready payload to standard output: the sanitized messages (every
message no rule touched byte-identical to the input) and a report of what each
rule changed. A zstd-compressed file is accepted.

--target PROVIDER/API/MODEL (e.g. anthropic/anthropic-messages/claude-opus-4-6)
sanitizes the job for that target instead of its own.

The input may also be an OpenClaw session file (JSONL, recognised by its
session header line, its first, of at most 64 KiB): it is repaired in memory as the runtime does (malformed
lines dropped and counted in the report; the file is never modified) and
sanitized for --target, or, without it, for the target of its last assistant
turn that is not an OpenClaw stand-in (a delivery mirror).

With --from FORMAT the input is a provider request body of that format
(anthropic-messages, openai-chat-completions, openai-responses,
gemini-generate-content, bedrock-converse, mistral-chat, or a short name:
anthropic, openai-chat, responses, gemini, bedrock, mistral), sanitized for
--target (default: the format's own provider and API, model "unknown"), as a
job with request_format and request is; the payload renders the request.

With --render request the payload also carries the provider request body for
the target (request_format and request: messages, contents or input, with the
job's system prompt and tools), as the job option "render" does.

Exit status: 0 on success; 2 with a one-line reason on stderr when the input
is not a valid job or session (the reason is the dead-letter code and
sentence the worker would give it); 1 on a runtime failure or a bug
(internal_error: a panic anywhere, never bad input).

Flags:
`

func sanitizeCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sanitize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "", "sanitize the job or session file for `PROVIDER/API/MODEL` instead of its own target")
	render := fs.String("render", "", "`messages|request`: override the job option render (request adds the provider request body)")
	from := fs.String("from", "", "read a provider request body of `FORMAT` (see above) instead of a job")
	configPath := fs.String("config", "", "worker configuration `FILE` (default: built-in defaults and HYGIENE_* variables)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), sanitizeHelp); fs.PrintDefaults() }
	if err := fs.Parse(interleaved(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "worker sanitize: one input at a time, got %d\n", fs.NArg())
		return exitUsage
	}
	cfg, err := config.Load(*configPath, os.Environ())
	if err != nil {
		fmt.Fprintf(stderr, "worker sanitize: %v\n", err)
		return exitUsage
	}
	input, err := readInput(fs.Arg(0), stdin, cfg.Limits.MaxJobBytes)
	if err != nil {
		fmt.Fprintf(stderr, "worker sanitize: %v\n", err)
		return exitUsage
	}
	_, restoreMemory := setJobMemory(cfg, len(input))
	defer restoreMemory() // the limit and the collector's pacing are this job's
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	proc, _, closeProc, err := newProcessor(cfg, nil)
	if err != nil {
		fmt.Fprintf(stderr, "worker sanitize: %v\n", err)
		return exitRuntime
	}
	defer closeProc()

	// The payload is written to stdout as it is encoded (ProcessTo), never
	// held whole: a long history keeps only its input and tapes live.
	var out pipeline.Outcome
	switch {
	case *from != "":
		out, err = sanitizeRequest(ctx, proc, input, *from, *target, *render, stdout)
	case transcript.LooksLikeSession(input):
		out, err = sanitizeSession(ctx, proc, cfg, input, *target, *render, stdout)
	case *target != "" || *render != "":
		out, err = sanitizeJob(ctx, proc, input, *target, *render, stdout)
	default:
		out, err = proc.ProcessTo(ctx, recordOf(input), stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "worker sanitize: %v\n", err)
		return exitRuntime
	}
	if !out.Ready {
		fmt.Fprintf(stderr, "worker sanitize: %s: %s\n", out.Code, firstLine(out.Error))
		return failureStatus(out.Code)
	}
	if _, err := stdout.Write([]byte{'\n'}); err != nil {
		fmt.Fprintf(stderr, "worker sanitize: writing the payload: %v\n", err)
		return exitRuntime
	}
	return exitOK
}

// sanitizeSession decodes a JSONL session for the --target (or, without
// one, for its last assistant turn's target, as replay does) and runs it,
// writing its payload to w.
func sanitizeSession(ctx context.Context, proc *pipeline.Processor, cfg config.Config, input []byte, targetFlag, render string, w io.Writer) (pipeline.Outcome, error) {
	tg := transcript.Target{Provider: "unset"}
	if targetFlag != "" {
		parsed, err := policy.ParseTarget(targetFlag)
		if err != nil {
			return pipeline.Outcome{Code: deadletter.CodeInvalidTarget, Error: "--target: " + err.Error()}, nil
		}
		tg = transcript.Target(parsed)
	}
	t, err := transcript.DecodeSession(input, tg, limitsOf(cfg))
	if err != nil {
		return pipeline.Outcome{Code: transcript.ErrorCode(err), Error: err.Error()}, nil
	}
	if targetFlag == "" {
		last, ok := replay.LastAssistantTarget(t)
		if !ok {
			return pipeline.Outcome{Code: deadletter.CodeInvalidTarget, Error: "session file: no assistant turn names a provider or api; pass --target PROVIDER/API/MODEL"}, nil
		}
		t.SetTarget(last)
	}
	t.Tenant = "local"
	if render != "" {
		t.Options.Render = render
	}
	return proc.SanitizeTo(ctx, t, w)
}

// sanitizeRequest runs a provider request body of format from as a request
// job for the target (or the format's own provider and API), writing its
// payload to w. The body is
// validated here, as the job decode validates a job's request (wire.Parse
// takes valid JSON).
func sanitizeRequest(ctx context.Context, proc *pipeline.Processor, input []byte, from, targetFlag, render string, w io.Writer) (pipeline.Outcome, error) {
	f, ok := wire.ParseFormat(from)
	if !ok {
		return pipeline.Outcome{Code: deadletter.CodeInvalidJob, Error: fmt.Sprintf("--from: %q is not one of %v", from, wire.Formats)}, nil
	}
	if _, err := transcript.ParseObject(input); err != nil {
		return pipeline.Outcome{Code: deadletter.CodeInvalidJob, Error: "request: " + err.Error()}, nil
	}
	tg := wire.DefaultSource(f)
	tg.Model = "unknown"
	if targetFlag != "" {
		parsed, err := policy.ParseTarget(targetFlag)
		if err != nil {
			return pipeline.Outcome{Code: deadletter.CodeInvalidTarget, Error: "--target: " + err.Error()}, nil
		}
		tg = transcript.Target(parsed)
	}
	t := &transcript.Transcript{JobID: "local", Tenant: "local", SessionID: "local", Target: tg,
		Input: &transcript.Request{Format: string(f), Body: input}, InputBytes: len(input)}
	t.Options.Render = render
	return proc.SanitizeTo(ctx, t, w)
}

// sanitizeJob runs a job with its target replaced by --target and its
// render option by --render (each when given), writing its payload to w; a
// large job is decoded in chunks, as the worker decodes it. Choice: the job must still be valid as
// it stands (its own target included), as the worker would receive it.
func sanitizeJob(ctx context.Context, proc *pipeline.Processor, input []byte, targetFlag, render string, w io.Writer) (pipeline.Outcome, error) {
	var tg transcript.Target
	if targetFlag != "" {
		parsed, err := policy.ParseTarget(targetFlag)
		if err != nil {
			return pipeline.Outcome{Code: deadletter.CodeInvalidTarget, Error: "--target: " + err.Error()}, nil
		}
		tg = transcript.Target(parsed)
	}
	t, err := proc.DecodeJob(input)
	if err != nil {
		return pipeline.Outcome{Code: transcript.ErrorCode(err), Error: err.Error()}, nil
	}
	if targetFlag != "" {
		t.SetTarget(tg)
	}
	if render != "" {
		t.Options.Render = render
	}
	return proc.SanitizeTo(ctx, t, w)
}

// setJobMemory sets the Go memory limit for the one job of inputBytes the
// process runs (memory.sanitize_input_ratio, memlimit.ForJob) and, under
// that limit, turns the collector's GOGC pacing off: it collects only as
// the heap nears the limit. GOMEMLIMIT in the environment, or a ratio of 0,
// sets no limit and leaves the pacing alone; so does a GOGC of the
// environment. It returns the limit it set (0 for none) and a function that
// puts the runtime's limit and GC percent back as they were.
//
// Why no pacing: a job's heap is mostly live until its payload is written
// (its tapes, message views and edits), so a collection at each doubling of
// the heap from 4 MB marks the same live bytes again for little garbage. On
// the clean 100k-message history of the large suite the three collections
// GOGC=100 ran freed 3 MB of 52, and it runs 4 % faster without them; a
// damaged one collects 2 times instead of 5, 3 % faster, its peak 4 % higher
// (bench/README.md, issue 31, session 13). The limit still bounds the heap:
// above it the runtime collects as it did.
func setJobMemory(cfg config.Config, inputBytes int) (int64, func()) {
	prevLimit, prevPercent := debug.SetMemoryLimit(-1), memlimit.GCPercent()
	restore := func() {
		debug.SetMemoryLimit(prevLimit)
		debug.SetGCPercent(int(prevPercent))
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return 0, restore
	}
	limit := memlimit.ForJob(memlimit.HeldBytes(), int64(inputBytes), cfg.Memory.SanitizeInputRatio)
	if limit <= 0 {
		return 0, restore
	}
	debug.SetMemoryLimit(limit)
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(-1)
	}
	return limit, restore
}

// failureStatus is the exit status of a job that did not come back ready:
// 1 for a bug (internal_error), 2 for what the input is (every other code).
func failureStatus(code deadletter.Code) int {
	if code == deadletter.CodeInternalError {
		return exitRuntime
	}
	return exitUsage
}

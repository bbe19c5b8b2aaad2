package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"golang.org/x/term"

	"github.com/hygiene-dev/hygiene/internal/batch"
	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/replay"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

const replayHelp = `usage: worker replay DIR|FILE... [--target P/API/MODEL] [--out DIR | --to-kafka] [--resume] [--concurrency N]
       worker replay DIR|FILE... --batch anthropic|openai-chat|openai-responses --model M --max-tokens N [--out DIR] [--target P/API/MODEL]

Repairs archived OpenClaw session files offline. Directories are walked for
.jsonl and .jsonl.zst files. Each session is read the way the runtime's
session-file repair reads it (malformed lines are dropped and counted in the
report; the files are never modified), sanitized by the same pipeline as
'worker run', and written as one ready payload per session:
OUT/<relative path>.ready.json, atomically (temp file + rename).

With --from FORMAT the files hold provider request bodies of that format
instead, one a line (as an SDK app logs its successive requests); the last
body of a file is its session, sanitized for --target (default: the format's
own provider and API) as a job with request_format and request is.

Without --target, each session's target is taken from its last assistant turn
(its provider, api and model); a session with no such turn is reported as
invalid_target. With --to-kafka the sessions are not processed here: each becomes a
job on the jobs topic of the configured brokers (kafka.brokers or
HYGIENE_KAFKA_BROKERS) for the Kafka workers.

Progress goes to stderr (a live bar on a terminal, plain lines otherwise), and
a summary at the end: sessions, repaired lines, the ready ones apart from the
dead letters by code (the codes 'worker run' gives the same jobs, and
unreadable for a file that cannot be read at all). A checkpoint
records every finished session; after an interruption (Ctrl-C is safe) run
again with --resume to skip them. A file that cannot be read, decompressed or
parsed is named in the summary and makes the exit status 2; the other
sessions are still processed. A bug met on a file (a panic: internal_error)
is that file's failure too, the others are still processed, and the exit
status is 1. Exit 1 on a runtime failure (a write failed).

With --batch the sessions become JSONL batch request files under --out for
the Anthropic Message Batches API or the OpenAI Batch API (chat completions
or responses): one line per session, its custom_id derived from the session
path, its body the provider request (as "render": "request" gives it) with
--model and --max-tokens. Files are split at the API's documented limits
(Anthropic: 100,000 requests or 256 MB; OpenAI: 50,000 requests or 200 MB),
or earlier with --batch-max-requests / --batch-max-bytes. Without --target the
sessions are sanitized for the batch API's own provider and --model.

Flags:
`

func replayCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "", "sanitize every session for `PROVIDER/API/MODEL` instead of its own last assistant's target")
	out := fs.String("out", "replay-out", "write ready payloads under `DIR`")
	toKafka := fs.Bool("to-kafka", false, "produce each session as a job to the configured jobs topic instead of processing it here")
	resume := fs.Bool("resume", false, "skip sessions the checkpoint records as finished (same path, size and mtime)")
	concurrency := fs.Int("concurrency", runtime.NumCPU(), "sessions processed at once")
	checkpoint := fs.String("checkpoint", "", "checkpoint `FILE` (default OUT/.hygiene-replay-checkpoint.jsonl, or ./.hygiene-replay-checkpoint.jsonl with --to-kafka)")
	from := fs.String("from", "", "the session files are JSONL of provider request bodies of `FORMAT` (see worker sanitize --help); the last body of each file is its session")
	tenant := fs.String("tenant", "offline", "tenant written into every payload or job")
	configPath := fs.String("config", "", "worker configuration `FILE` (limits, images, pruning, kafka)")
	batchKind := fs.String("batch", "", "write JSONL batch request files for `API`: anthropic, openai-chat or openai-responses")
	model := fs.String("model", "", "with --batch: the `MODEL` every request names")
	maxTokens := fs.Int("max-tokens", 0, "with --batch: max_tokens (max_completion_tokens, max_output_tokens) of every request")
	batchRequests := fs.Int("batch-max-requests", 0, "with --batch: requests per file (default and upper bound: the API's documented limit)")
	batchBytes := fs.Int64("batch-max-bytes", 0, "with --batch: bytes per file (default and upper bound: the API's documented limit)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), replayHelp); fs.PrintDefaults() }
	if err := fs.Parse(interleaved(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "worker replay: "+format+"\n", a...)
		return code
	}
	if fs.NArg() == 0 {
		return fail(exitUsage, "name at least one session directory or file (see --help)")
	}
	if *concurrency < 1 {
		return fail(exitUsage, "--concurrency must be at least 1, got %d", *concurrency)
	}
	cfg, err := config.Load(*configPath, os.Environ())
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	opts := replay.Options{
		Inputs: fs.Args(), Tenant: *tenant, Concurrency: *concurrency, Resume: *resume,
		Limits: limitsOf(cfg), Progress: stderr, Terminal: isTerminal(stderr),
	}
	if *target != "" {
		tg, err := policy.ParseTarget(*target)
		if err != nil {
			return fail(exitUsage, "--target: %v", err)
		}
		t := transcript.Target(tg)
		opts.Target = &t
	}
	if *from != "" {
		f, ok := wire.ParseFormat(*from)
		if !ok {
			return fail(exitUsage, "--from: %q is not one of %v", *from, wire.Formats)
		}
		opts.From = string(f)
		if opts.Target == nil && *batchKind == "" {
			t := wire.DefaultSource(f)
			t.Model = "unknown"
			opts.Target = &t
		}
	}
	var batchWriter *batch.Writer
	if *batchKind != "" {
		kind, err := batch.ParseKind(*batchKind)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		if *toKafka {
			return fail(exitUsage, "--batch and --to-kafka exclude each other")
		}
		if opts.Target == nil {
			t := kind.DefaultTarget(*model)
			opts.Target = &t
		} else if f := wire.FormatFor(policy.Resolve(*opts.Target)); f != kind.Format() {
			return fail(exitUsage, "--target renders %s, but a %s batch needs %s", f, kind, kind.Format())
		}
		batchWriter, err = batch.Open(batch.Config{Dir: *out, Kind: kind, Model: *model, MaxTokens: *maxTokens,
			Limits: batch.Limits{MaxRequests: *batchRequests, MaxBytes: *batchBytes}}, *resume)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch {
	case batchWriter != nil:
		proc, _, closeImages, err := newProcessor(cfg, nil)
		if err != nil {
			return fail(exitRuntime, "%v", err)
		}
		defer closeImages()
		opts.Process = func(ctx context.Context, t *transcript.Transcript) (pipeline.Outcome, error) {
			t.Options.Render = wire.RenderRequest
			return proc.Sanitize(ctx, t)
		}
		opts.Output = batchOutput{w: batchWriter}
		opts.CheckpointPath = pick(*checkpoint, filepath.Join(*out, ".hygiene-batch-"+*batchKind+"-checkpoint.jsonl"))
	case *toKafka:
		if len(cfg.Kafka.Brokers) == 0 {
			return fail(exitUsage, "--to-kafka needs brokers: set kafka.brokers in --config or HYGIENE_KAFKA_BROKERS")
		}
		sink, err := newSink(cfg.Kafka, cfg.Kafka.Connection(cfg.Kafka.Brokers), cfg.Kafka.JobsTopic)
		if err != nil {
			return fail(exitRuntime, "%v", err)
		}
		defer sink.Close(context.Background())
		opts.Output = jobOutput{sink: sink}
		opts.CheckpointPath = pick(*checkpoint, ".hygiene-replay-checkpoint.jsonl")
	default:
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return fail(exitRuntime, "%v", err)
		}
		proc, _, closeImages, err := newProcessor(cfg, nil)
		if err != nil {
			return fail(exitRuntime, "%v", err)
		}
		defer closeImages()
		opts.Process = proc.Sanitize
		opts.Output = replay.DirOutput{Dir: *out}
		opts.CheckpointPath = pick(*checkpoint, filepath.Join(*out, ".hygiene-replay-checkpoint.jsonl"))
	}

	sum, err := replay.Run(ctx, opts)
	where := "ready payloads in " + *out
	switch {
	case *toKafka:
		where = "jobs produced to Kafka"
	case batchWriter != nil:
		where = "batch requests in " + *out
	}
	printSummary(stdout, sum, where)
	if batchWriter != nil {
		files, closeErr := batchWriter.Close()
		err = errors.Join(err, closeErr)
		fmt.Fprintf(stdout, "replay: %d %s batch files in %s\n", len(files), *batchKind, *out)
		for _, f := range files {
			fmt.Fprintf(stdout, "  %s\n", f)
		}
	}
	switch {
	case err != nil:
		return fail(exitRuntime, "%v", err)
	case sum.Interrupted:
		fmt.Fprintf(stderr, "worker replay: interrupted with %d sessions left; run again with --resume to continue\n", sum.Remaining)
		return exitRuntime
	case sum.DeadLetters[deadletter.CodeInternalError] > 0:
		return fail(exitRuntime, "%d of %d sessions failed (listed above), %d of them for a bug (internal_error)",
			len(sum.Failures), sum.Found-sum.Skipped, sum.DeadLetters[deadletter.CodeInternalError])
	case len(sum.Failures) > 0:
		return fail(exitUsage, "%d of %d sessions failed (listed above)", len(sum.Failures), sum.Found-sum.Skipped)
	}
	return exitOK
}

func pick(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// batchOutput appends each session's request to the batch files.
type batchOutput struct{ w *batch.Writer }

func (o batchOutput) Deliver(_ context.Context, f replay.SessionFile, t *transcript.Transcript, _ pipeline.Outcome) error {
	return o.w.Add(f.Rel, t.Request)
}

// jobOutput produces each session as a job record, keyed tenant/session_id
// as the workers expect.
type jobOutput struct{ sink transport.Sink }

func (o jobOutput) Deliver(ctx context.Context, _ replay.SessionFile, t *transcript.Transcript, _ pipeline.Outcome) error {
	return o.sink.Write(ctx, transport.Record{Key: []byte(t.Tenant + "/" + t.SessionID), Value: t.EncodeJob(nil)})
}

func printSummary(w io.Writer, s replay.Summary, where string) {
	fmt.Fprintf(w, "replay: %d sessions found, %d skipped (already done), %d delivered (%s), %d changed by hygiene\n",
		s.Found, s.Skipped, s.Delivered, where, s.Changed)
	fmt.Fprintf(w, "replay: %d malformed lines dropped in %d sessions; %.1f MB read in %s\n",
		s.RepairedLines, s.RepairedFiles, float64(s.BytesIn)/1e6, s.Elapsed.Round(1e6))
	if len(s.Failures) > 0 {
		fmt.Fprintf(w, "replay: %d dead letters by code: %v\n", len(s.Failures), s.DeadLetters)
		for _, f := range s.Failures {
			fmt.Fprintf(w, "  %s: %s: %s\n", f.Path, f.Code, f.Reason)
		}
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

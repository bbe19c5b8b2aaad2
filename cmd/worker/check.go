package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

const checkHelp = `usage: worker check [FILE|-] [--target PROVIDER/API/MODEL] [--context-window-tokens N]

Checks a job or a ready payload (JSON, as on hygiene.jobs or hygiene.ready;
zstd accepted) against its target's documented contract (internal/contract:
turn order, tool-call ids and names, image counts, sides and sizes, request
size, text validity, thinking signatures, required content) without
repairing anything, and prints each violation as "path: what [rule]". It is
how to ask "would the provider accept this?"; run 'worker sanitize' first to
repair a job.

--target overrides the file's target; the context window (which sets
Anthropic's per-request image cap) is --context-window-tokens, else the
file's options.context_window_tokens, else unknown (the smaller cap).

Exit status: 0 when the messages meet the contract (one line "ok: FAMILY"
on standard output); 2 when they do not (the violations on standard output,
a summary on stderr) or the input is not a job or payload; 1 on a runtime
failure.

Flags:
`

func checkCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "", "check for `PROVIDER/API/MODEL` instead of the file's target")
	window := fs.Int("context-window-tokens", 0, "the model's context window in `TOKENS` (0: the file's options, else unknown)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), checkHelp); fs.PrintDefaults() }
	if err := fs.Parse(interleaved(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "worker check: one input at a time, got %d\n", fs.NArg())
		return exitUsage
	}
	cfg, err := config.Load("", os.Environ())
	if err != nil {
		fmt.Fprintf(stderr, "worker check: %v\n", err)
		return exitUsage
	}
	input, err := readInput(fs.Arg(0), stdin, cfg.Limits.MaxJobBytes)
	if err != nil {
		fmt.Fprintf(stderr, "worker check: %v\n", err)
		return exitUsage
	}
	msgs, tg, fileWindow, err := decodeForCheck(input, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "worker check: %v\n", err)
		return exitUsage
	}
	if *target != "" {
		parsed, err := policy.ParseTarget(*target)
		if err != nil {
			fmt.Fprintf(stderr, "worker check: --target: %v\n", err)
			return exitUsage
		}
		tg = parsed
	}
	if tg.Validate() != nil {
		fmt.Fprintln(stderr, "worker check: target: required, with a provider or an api (or pass --target)")
		return exitUsage
	}
	if *window <= 0 {
		*window = fileWindow
	}
	c := policy.Resolve(tg).Contract
	res := contract.Check(msgs, c, *window)
	if res.OK() {
		fmt.Fprintf(stdout, "ok: %s\n", c.Family)
		return exitOK
	}
	for _, v := range res.Violations {
		fmt.Fprintf(stdout, "%s [%s]\n", v, v.Rule)
	}
	if res.Total > len(res.Violations) {
		fmt.Fprintf(stdout, "... and %d more\n", res.Total-len(res.Violations))
	}
	fmt.Fprintf(stderr, "worker check: unsendable to %s (%s): %s\n", tg, c.Family, res.Summary())
	return exitUsage
}

// decodeForCheck reads the messages, target (zero when absent) and context
// window of a job or a ready payload. Unlike a job's decoder it accepts the payload's extra
// members (report, append_entries); the messages are validated as the
// codec validates them.
func decodeForCheck(input []byte, cfg config.Config) ([]*transcript.Message, transcript.Target, int, error) {
	top, err := transcript.ParseObject(input)
	if err != nil {
		return nil, transcript.Target{}, 0, fmt.Errorf("not a JSON object: %v", err)
	}
	var tg transcript.Target
	if rawTarget, ok := top.Get("target"); ok {
		tgObj, err := transcript.ParseObject(rawTarget)
		if err != nil {
			return nil, transcript.Target{}, 0, fmt.Errorf("target: %v", err)
		}
		tg.Provider, _ = tgObj.String("provider")
		tg.API, _ = tgObj.String("api")
		tg.Model, _ = tgObj.String("model")
	}
	rawMessages, ok := top.Get("messages")
	if !ok {
		if rawMessages, ok, err = requestMessages(&top, tg); err != nil {
			return nil, transcript.Target{}, 0, err
		}
	}
	if !ok {
		return nil, transcript.Target{}, 0, errors.New("messages: required")
	}
	if err := transcript.Valid(rawMessages, cfg.Limits.MaxDepth); err != nil {
		return nil, transcript.Target{}, 0, fmt.Errorf("messages: %v", err)
	}
	t, err := transcript.FromMessages(rawMessages, transcript.Target(tg))
	if err != nil {
		return nil, transcript.Target{}, 0, fmt.Errorf("messages: %v", err)
	}
	window := 0
	if rawOptions, ok := top.Get("options"); ok {
		if opts, err := transcript.ParseObject(rawOptions); err == nil {
			if raw, ok := opts.Get("context_window_tokens"); ok {
				window, _ = strconv.Atoi(string(raw))
			}
		}
	}
	return t.Messages, tg, window, nil
}

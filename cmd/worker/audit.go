package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/hygiene-dev/hygiene/internal/audit"
	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/replay"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

const auditHelp = `usage: worker audit DIR|FILE... [--target PROVIDER/API/MODEL ...] [--json] [--fail-on-drop]

Tells, before a provider switch, what the worker would do to archived
sessions: each input is read as 'worker replay' reads it (directories walked
for .jsonl and .jsonl.zst; a named file ending in .json or .json.zst is a
job), run through the worker's pipeline with render: request for each
--target (repeat the flag; without it, a session's own target as replay
chooses it, a job's target), and reported: ready or the dead-letter code;
tool calls and results in and out; every dropped call or result with its
reason class (errored_turn, invalid_name, incomplete_arguments,
no_call_on_branch, duplicate_result, ... valid_call_dropped); every part
dropped or replaced by a placeholder, by kind (document, image_url,
file_id, image, cache_control, thought parts, ...); and whether the
rendered request body passes the target's contract. Nothing is written
but the report (a table, or JSON with --json; see package internal/audit
for both). A live progress bar goes to stderr on a terminal.

Exit status: 0 when the audit ran; 2 with --fail-on-drop when a call with
complete arguments in a turn that did not fail was dropped, or its result
(class valid_call_dropped), or a pipeline failed (internal_error), and on
bad usage; 1 on a runtime failure.

Flags:
`

// targetList is a repeatable --target flag.
type targetList []transcript.Target

func (l *targetList) String() string {
	parts := make([]string, len(*l))
	for i, t := range *l {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

func (l *targetList) Set(s string) error {
	t, err := policy.ParseTarget(s)
	if err != nil {
		return err
	}
	*l = append(*l, t)
	return nil
}

func auditCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var targets targetList
	fs.Var(&targets, "target", "audit for `PROVIDER/API/MODEL` (repeatable) instead of each input's own target")
	asJSON := fs.Bool("json", false, "write the report as JSON instead of a table")
	failOnDrop := fs.Bool("fail-on-drop", false, "exit 2 when a well-formed call or its result was dropped, or a pipeline failed")
	concurrency := fs.Int("concurrency", runtime.NumCPU(), "files audited at once")
	configPath := fs.String("config", "", "worker configuration `FILE` (limits, images, pruning, contract mode)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), auditHelp); fs.PrintDefaults() }
	if err := fs.Parse(interleaved(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "worker audit: "+format+"\n", a...)
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
	proc, _, closeImages, err := newProcessor(cfg, nil)
	if err != nil {
		return fail(exitRuntime, "%v", err)
	}
	defer closeImages()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := audit.Run(ctx, audit.Options{
		Inputs: fs.Args(), Targets: targets, Limits: limitsOf(cfg),
		Read:      func(path string) ([]byte, error) { return replay.ReadSession(path, cfg.Limits.MaxJobBytes) },
		DecodeJob: proc.DecodeJob, Process: proc.Sanitize, Context: cfg.Context,
		Concurrency: *concurrency, Progress: stderr, Terminal: isTerminal(stderr),
	})
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = audit.WriteTable(stdout, rep)
	}
	if err != nil {
		return fail(exitRuntime, "writing the report: %v", err)
	}
	if err := dropFailure(rep.Totals); *failOnDrop && err != nil {
		return fail(exitUsage, "%v (--fail-on-drop)", err)
	}
	return exitOK
}

// dropFailure says what --fail-on-drop fails on: a well-formed call or its
// result dropped, or a pipeline that failed (whose drops are unknown).
func dropFailure(t audit.Totals) error {
	crashed := t.Outcomes[string(deadletter.CodeInternalError)]
	if t.ValidDrops == 0 && crashed == 0 {
		return nil
	}
	return fmt.Errorf("%d well-formed tool calls or results dropped, %d pipeline failures", t.ValidDrops, crashed)
}

// Command worker is the hygiene service: it repairs LLM agent transcripts so
// they can be replayed to any model provider.
//
//	worker run      [--config FILE]                   consume jobs from Kafka (an embedded broker when none is configured)
//	worker replay   DIR|FILE... [flags]               repair archived OpenClaw session files offline
//	worker sanitize [FILE|-] [--target P/API/MODEL]   one job (or session file) to a ready payload on stdout
//	worker audit    DIR|FILE... [--target P/API/MODEL ...]  what the repair would drop or refuse, per session and target
//	worker dlq      redrive [flags]                   send dead letters back to the jobs topic
//	worker check    [FILE|-] [--target P/API/MODEL]   would the target accept this job or payload? (its contract)
//	worker config   print [--config FILE] | validate FILE
//	worker schema   job|payload|deadletter|openapi    print a published contract (docs/schemas)
//	worker version
//
// Exit codes: 0 done, 1 runtime failure or a bug (internal_error: a panic,
// never bad input), 2 bad input or usage, each failure with a one-line
// reason on stderr. main is the only place that exits.
//
// May import: any package of this module (a command is the top of the house).
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
)

// Exit codes shared by every subcommand.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

const usage = `usage: worker <command> [arguments]

commands:
  run       consume jobs from Kafka and write ready payloads and dead letters
  replay    repair archived OpenClaw session files (.jsonl, .jsonl.zst) offline
  sanitize  repair one job or session file and print the ready payload
  audit     report, per session and target, what the repair would drop or refuse
  dlq       redrive: send dead letters back to the jobs topic
  check     check a job or ready payload against its target's contract (exit 2 if unsendable)
  config    print the effective configuration, or validate a file
  schema    print the JSON Schema of a job, ready payload or dead letter, or the OpenAPI document
  version   print the build version

Run 'worker <command> --help' for a command's flags.
`

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// dispatch runs one command and returns its exit status. A panic in a
// command is a bug, never bad input: it is reported as internal_error with
// exit 1 (Go's own exit status for a panic, 2, would read as bad input).
func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			name := "worker"
			if len(args) > 0 {
				name += " " + args[0]
			}
			out := pipeline.Recovered(pipeline.StageRunner, r)
			fmt.Fprintf(stderr, "%s: %s: %s\n", name, out.Code, firstLine(out.Error))
			code = exitRuntime
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return runCommand(rest, stdout, stderr)
	case "replay":
		return replayCommand(rest, stdout, stderr)
	case "sanitize":
		return sanitizeCommand(rest, stdin, stdout, stderr)
	case "audit":
		return auditCommand(rest, stdout, stderr)
	case "dlq":
		return dlqCommand(rest, stdout, stderr)
	case "check":
		return checkCommand(rest, stdin, stdout, stderr)
	case "config":
		return config.RunCommand(rest, stdout, stderr, os.Environ())
	case "schema":
		return schemaCommand(rest, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, version())
		return exitOK
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "worker: unknown command %q\n%s", cmd, usage)
		return exitUsage
	}
}

// version is the module version and VCS revision the binary was built from.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "hygiene worker (unknown build)"
	}
	v := "hygiene worker " + info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value
		}
	}
	return v
}

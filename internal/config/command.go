package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes of RunCommand, as for every worker command.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitInvalid = 2
)

const commandUsage = `usage:
  worker config print [--config FILE]   print the effective config (file, then HYGIENE_* env) as YAML
  worker config validate FILE           check FILE with the HYGIENE_* env applied; exit 2 if invalid
`

// RunCommand runs `worker config ...`; args are the words after "config".
// It returns the process exit code: 0 ok, 1 output failed, 2 invalid
// config or usage, with a one-line reason on stderr.
func RunCommand(args []string, stdout, stderr io.Writer, environ []string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, commandUsage)
		return ExitInvalid
	}
	switch args[0] {
	case "print":
		return runPrint(args[1:], stdout, stderr, environ)
	case "validate":
		return runValidate(args[1:], stdout, stderr, environ)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, commandUsage)
		return ExitOK
	default:
		fmt.Fprintf(stderr, "worker config: unknown subcommand %q (want print or validate)\n", args[0])
		return ExitInvalid
	}
}

func runPrint(args []string, stdout, stderr io.Writer, environ []string) int {
	fs := flag.NewFlagSet("worker config print", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	path := fs.String("config", "", "config file (default: none, built-in defaults)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, commandUsage)
			return ExitOK
		}
		fmt.Fprintf(stderr, "worker config print: %v\n", err)
		return ExitInvalid
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "worker config print: unexpected argument %q (use --config FILE)\n", fs.Arg(0))
		return ExitInvalid
	}
	cfg, err := Load(*path, environ)
	if err != nil {
		fmt.Fprintf(stderr, "worker config print: %s\n", oneLine(err))
		return ExitInvalid
	}
	if err := Print(stdout, cfg); err != nil {
		fmt.Fprintf(stderr, "worker config print: %s\n", oneLine(err))
		return ExitFailure
	}
	return ExitOK
}

func runValidate(args []string, stdout, stderr io.Writer, environ []string) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "worker config validate: want exactly one FILE argument, got %q\n", strings.Join(args, " "))
		return ExitInvalid
	}
	if _, err := Load(args[0], environ); err != nil {
		fmt.Fprintf(stderr, "worker config validate: %s\n", oneLine(err))
		return ExitInvalid
	}
	fmt.Fprintf(stdout, "%s: valid\n", args[0])
	return ExitOK
}

// oneLine folds a multi-line error (such as a YAML syntax error) onto one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

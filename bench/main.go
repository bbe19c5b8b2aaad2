// Command bench measures hygiene on this machine, in one run: the in-process
// pipeline (jobs/s, MB/s, each stage's share of the time), end to end through
// Kafka with the real worker binary (jobs/s, MB/s, latency percentiles, CPU
// and peak RSS), the baselines (the no-op pipeline on the same broker, a plain
// encoding/json codec, the vipsthumbnail CLI and pure Go on the same images),
// the pairing rule at up to 1M messages, and a sweep over pool size and
// concurrency. It writes the figures as JSON and PNG plots under --out.
//
//	go run ./bench                 # the full run (about 10 minutes on 2 cores)
//	go run ./bench --quick         # a smoke run (under a minute)
//	go run ./bench --suite e2e --brokers $(scripts/kafka.sh start)
//
// Every load run is bounded in jobs and in time (--duration) and uses
// loopback addresses only.
//
// May import: any package of this module (a command is the top of the house).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, runs the chosen suites and returns the exit status:
// 0 done, 1 a suite failed, 2 bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	res, err := runSuites(ctx, opts, stdout)
	if res != nil {
		if werr := writeResults(opts, res, stdout); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	return 0
}

// commandLine is how this run was invoked, recorded with its figures.
func commandLine(args []string) string {
	return strings.TrimSpace("go run ./bench " + strings.Join(args, " "))
}

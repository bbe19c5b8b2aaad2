package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/redrive"
)

const dlqUsage = `usage: worker dlq redrive [--config FILE] [--group NAME] [--from-offset N | --from-time TIME]
                          [--code CODE,...] [--tenant NAME,...] [--dry-run]

Sends dead letters back to the jobs topic once their cause is fixed: reads
kafka.dlq_topic up to the end it sees at the start, and re-produces the
original key, value and headers (without the hygiene-* dead-letter headers) of
each letter that matches the filters to kafka.jobs_topic. A letter whose value
is not the original job (a stand-in for one too large for the dead-letter
topic) is listed and never produced.

A run reads as its own consumer group (--group) and commits only after the
jobs topic acknowledged what it produced, so running it again with the same
group goes on where the last run stopped and produces nothing twice. Without
--from-offset or --from-time it starts at the group's committed offsets, or
at the beginning of the topic. Use a new --group, or a start, for a new pass
with other filters. kafka.brokers must be set (for the embedded broker of
'worker run', its kafka.embedded_listen).

Exit status: 0 done, 1 runtime failure, 2 bad usage.

flags:
`

// dlqCommand runs `worker dlq ...`; args are the words after "dlq".
func dlqCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "redrive" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprint(stdout, dlqUsage)
			return exitOK
		}
		fmt.Fprint(stderr, dlqUsage)
		return exitUsage
	}
	fs := flag.NewFlagSet("worker dlq redrive", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, dlqUsage); fs.PrintDefaults() }
	cfgPath := fs.String("config", "", "YAML configuration `file` (default: built-in defaults, then HYGIENE_* variables)")
	group := fs.String("group", "", "the run's consumer `group` (default: kafka.group_id + \".redrive\")")
	fromOffset := fs.Int64("from-offset", -1, "start every partition at `offset` N")
	fromTime := fs.String("from-time", "", "start at the first letter written at or after `TIME` (RFC 3339, or a duration ago such as 2h)")
	codes := fs.String("code", "", "only letters with these hygiene-error-code `values` (comma-separated)")
	tenants := fs.String("tenant", "", "only letters of these `tenants` (comma-separated; the record key's tenant)")
	dryRun := fs.Bool("dry-run", false, "read and report, produce and commit nothing")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "worker dlq redrive: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	cfg, err := config.Load(*cfgPath, os.Environ())
	if err != nil {
		fmt.Fprintf(stderr, "worker dlq redrive: %s\n", firstLine(err.Error()))
		return exitUsage
	}
	if len(cfg.Kafka.Brokers) == 0 {
		fmt.Fprintln(stderr, "worker dlq redrive: kafka.brokers is not set (HYGIENE_KAFKA_BROKERS)")
		return exitUsage
	}
	start, err := parseStart(*fromTime, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "worker dlq redrive: --from-time: %v\n", err)
		return exitUsage
	}
	if !start.IsZero() && *fromOffset >= 0 {
		fmt.Fprintln(stderr, "worker dlq redrive: give --from-offset or --from-time, not both")
		return exitUsage
	}
	rc := redrive.Config{
		Kafka: cfg.Kafka.Connection(cfg.Kafka.Brokers), DLQTopic: cfg.Kafka.DLQTopic, JobsTopic: cfg.Kafka.JobsTopic,
		Group: *group, FromOffset: *fromOffset, FromTime: start, Codes: list(*codes), Tenants: list(*tenants),
		DryRun: *dryRun, MaxMessageBytes: int(cfg.Kafka.MaxMessageBytes), Progress: progressPrinter(stderr),
	}
	if rc.Group == "" {
		rc.Group = cfg.Kafka.GroupID + ".redrive"
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	sum, err := redrive.Run(ctx, rc)
	printRedriveSummary(stdout, rc, sum)
	if err != nil {
		fmt.Fprintf(stderr, "worker dlq redrive: %s\n", firstLine(err.Error()))
		return exitRuntime
	}
	return exitOK
}

// parseStart reads --from-time: RFC 3339, or a duration before now.
func parseStart(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither RFC 3339 (2026-12-01T09:00:00Z) nor a duration (2h)", s)
	}
	return t, nil
}

// list splits a comma-separated flag value.
func list(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// progressPrinter prints a progress line at most once a second.
func progressPrinter(w io.Writer) func(redrive.Summary) {
	var last time.Time
	return func(s redrive.Summary) {
		if time.Since(last) < time.Second && s.Done < s.Partitions {
			return
		}
		last = time.Now()
		fmt.Fprintf(w, "redrive: partitions %d/%d, read %d, matched %d, redriven %d, stand-ins %d\n",
			s.Done, s.Partitions, s.Read, s.Matched, s.Redriven, len(s.StandIns))
	}
}

// printRedriveSummary writes the run's summary.
func printRedriveSummary(w io.Writer, rc redrive.Config, s redrive.Summary) {
	verb := "redriven"
	if rc.DryRun {
		verb = "would be redriven (dry run)"
	}
	fmt.Fprintf(w, "%s -> %s: read %d, matched %d, %s %d\n", rc.DLQTopic, rc.JobsTopic, s.Read, s.Matched, verb, s.Redriven)
	codes := make([]string, 0, len(s.ByCode))
	for c := range s.ByCode {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		fmt.Fprintf(w, "  %-22s %d\n", c, s.ByCode[c])
	}
	if len(s.StandIns) > 0 {
		fmt.Fprintf(w, "not produced, their value is not the original job (stand-ins): %d: %s\n", len(s.StandIns), strings.Join(s.StandIns, " "))
	}
}

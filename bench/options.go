package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// suiteNames are the parts of a run, in the order they run.
var suiteNames = []string{"inproc", "codec", "images", "pairing", "large", "e2e"}

// options are the bench's flags after defaults and --quick are applied.
type options struct {
	command  string
	args     []string // as given, for the per-row commands of the table
	suites   []string
	brokers  []string // empty: the embedded broker inside this process
	jobs     int      // jobs per load run
	duration time.Duration
	seed     uint64
	messages int // messages per generated history
	images   int // images per generated history
	imageW   int
	imageH   int
	keySkew  float64 // Zipf exponent over the sessions (0 or <= 1: uniform)
	// toolOutput is the share of tool results that hold tool output
	// (sessiongen.Config.ToolOutput) instead of prose
	toolOutput float64
	window     int   // end to end: jobs produced but not yet ready, at most
	conc       []int // in-process sweep: goroutines calling Process
	pools      []int // sweep: the worker's job pool sizes (and image pool sizes in process)
	pairing    []int // history lengths of the pairing suite
	large      []int // history lengths of the large suite
	// largeRounds is how many times the large suite measures each process
	// of a history (its figures are the medians)
	largeRounds int
	codecMB     int // size of the codec suite's job
	out         string
	name        string // file prefix of the results: "full" or "quick", "-kafka" with --brokers
	quick       bool
}

// parseOptions reads the flags; --quick shrinks every default it did not
// see set explicitly.
func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	suite := fs.String("suite", "all", "comma-separated suites to run: "+strings.Join(suiteNames, ",")+" or all")
	brokers := fs.String("brokers", "", "comma-separated Kafka bootstrap `addresses` for the end-to-end suite (default: an embedded broker on a free loopback port)")
	jobs := fs.Int("jobs", 2000, "jobs per load run (in process and end to end)")
	duration := fs.Duration("duration", 20*time.Second, "time cap of each load run; a run that hits it reports what it finished")
	seed := fs.Uint64("seed", 1, "seed of the generated sessions")
	messages := fs.Int("messages", 60, "messages per generated history")
	imgs := fs.Int("images", 1, "images per generated history (the same picture repeats inside a history)")
	size := fs.String("image-size", "1920x1080", "generated image size, `WxH` (larger than 1200 px is resized)")
	keySkew := fs.Float64("key-skew", 1.2, "Zipf exponent over the 500 sessions (keys); 1 or less is uniform")
	toolOutput := fs.Float64("tool-output", 0, "`share` (0 to 1) of tool results that hold what real tools print (source, listings, test output, JSON) instead of prose")
	window := fs.Int("window", 64, "end to end: most jobs produced but not yet ready")
	conc := fs.String("concurrency", "1,2,4,8", "in-process sweep: goroutines calling Process")
	pools := fs.String("pools", "1,2,4,8", "sweep: the worker's job pool sizes end to end, and image pool sizes in process (up to the cores)")
	pairing := fs.String("pairing", "10000,100000,1000000", "history lengths (messages) of the pairing suite")
	large := fs.String("large", "10000,100000,1000000", "history lengths (messages) of the large suite (worker sanitize against python json)")
	largeRounds := fs.Int("large-rounds", 3, "rounds of the large suite: each history's processes run this many times, alternately, and report their medians")
	codecMB := fs.Int("codec-mb", 10, "size in MB of the codec suite's generated job")
	out := fs.String("out", "bench/results", "`directory` of the JSON results and PNG plots")
	name := fs.String("name", "", "file `prefix` of the results (default full, or quick with --quick; -kafka is added with --brokers)")
	quick := fs.Bool("quick", false, "a smoke run under a minute: few jobs, short caps, small sweep")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: go run ./bench [flags]\n\nMeasures the pipeline in process and end to end through Kafka, with baselines.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	o := options{command: commandLine(args), args: args, jobs: *jobs, duration: *duration, seed: *seed, messages: *messages,
		images: *imgs, keySkew: *keySkew, toolOutput: *toolOutput, window: *window, codecMB: *codecMB, largeRounds: *largeRounds, out: *out, quick: *quick, name: "full"}
	if o.quick {
		o.name = "quick"
		shrink := map[string]func(){
			"jobs":         func() { o.jobs = 100 },
			"duration":     func() { o.duration = 5 * time.Second },
			"concurrency":  func() { *conc = "2" },
			"pools":        func() { *pools = "2" },
			"pairing":      func() { *pairing = "10000" },
			"large":        func() { *large = "10000" },
			"large-rounds": func() { o.largeRounds = 1 },
			"codec-mb":     func() { o.codecMB = 2 },
		}
		for name, f := range shrink {
			if !set[name] {
				f()
			}
		}
	}
	var err error
	if o.suites, err = parseSuites(*suite); err != nil {
		return options{}, err
	}
	if *name != "" {
		o.name = *name
	}
	if *brokers != "" {
		o.brokers = strings.Split(*brokers, ",")
		o.name += "-kafka" // results on a real broker do not overwrite the embedded ones
	}
	if _, err := fmt.Sscanf(*size, "%dx%d", &o.imageW, &o.imageH); err != nil || o.imageW <= 0 || o.imageH <= 0 {
		return options{}, fmt.Errorf("--image-size %q is not WxH with positive sizes", *size)
	}
	if o.conc, err = parseInts("concurrency", *conc); err != nil {
		return options{}, err
	}
	if o.pools, err = parseInts("pools", *pools); err != nil {
		return options{}, err
	}
	if o.pairing, err = parseInts("pairing", *pairing); err != nil {
		return options{}, err
	}
	if o.large, err = parseInts("large", *large); err != nil {
		return options{}, err
	}
	switch {
	case o.jobs <= 0:
		return options{}, fmt.Errorf("--jobs must be positive, got %d", o.jobs)
	case o.duration <= 0:
		return options{}, fmt.Errorf("--duration must be positive, got %s", o.duration)
	case o.messages <= 0:
		return options{}, fmt.Errorf("--messages must be positive, got %d", o.messages)
	case o.images < 0:
		return options{}, fmt.Errorf("--images must not be negative, got %d", o.images)
	case o.keySkew < 0:
		return options{}, fmt.Errorf("--key-skew must not be negative, got %g", o.keySkew)
	case o.toolOutput < 0 || o.toolOutput > 1:
		return options{}, fmt.Errorf("--tool-output must be a share from 0 to 1, got %g", o.toolOutput)
	case o.window <= 0:
		return options{}, fmt.Errorf("--window must be positive, got %d", o.window)
	case o.codecMB <= 0:
		return options{}, fmt.Errorf("--codec-mb must be positive, got %d", o.codecMB)
	case o.largeRounds <= 0:
		return options{}, fmt.Errorf("--large-rounds must be positive, got %d", o.largeRounds)
	}
	return o, nil
}

// parseSuites expands "all" and checks every name.
func parseSuites(s string) ([]string, error) {
	if s == "all" {
		return suiteNames, nil
	}
	var out []string
	for _, name := range strings.Split(s, ",") {
		if !slices.Contains(suiteNames, name) {
			return nil, fmt.Errorf("--suite: unknown suite %q (known: %s, all)", name, strings.Join(suiteNames, ", "))
		}
		out = append(out, name)
	}
	return out, nil
}

// parseInts reads a comma-separated list of positive integers.
func parseInts(flagName, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--%s: %q is not a positive integer", flagName, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// has reports whether the suite is part of this run.
func (o options) has(suite string) bool { return slices.Contains(o.suites, suite) }

// rowFlags are the flags a table row's command sets itself.
var rowFlags = map[string]bool{"suite": true, "concurrency": true, "pools": true, "pairing": true, "large": true, "out": true, "name": true}

// rowCommand is the command that measures one row of the table again: this
// run's flags without the ones that choose suites and sweeps, plus extra.
func (o options) rowCommand(extra ...string) string {
	rest := []string{}
	for i := 0; i < len(o.args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(o.args[i], "-"), "=")
		if rowFlags[name] {
			if !hasValue {
				i++ // skip the value
			}
			continue
		}
		rest = append(rest, o.args[i])
	}
	return commandLine(append(extra, rest...))
}

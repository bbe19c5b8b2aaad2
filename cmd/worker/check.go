package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

const checkHelp = `usage: worker check [FILE|-] [--target PROVIDER/API/MODEL] [--context-window-tokens N] [--max-output-tokens N]
       worker check --format FORMAT [--target PROVIDER/API/MODEL] BODY.json

Checks a job or a ready payload (JSON, as on hygiene.jobs or hygiene.ready;
zstd accepted) against its target's documented contract (internal/contract:
turn order, tool-call ids and names, image counts, sides and sizes, request
size, text validity, thinking signatures, required content) without
repairing anything, and prints each violation as "path: what [rule]". It is
how to ask "would the provider accept this?"; run 'worker sanitize' first to
repair a job. A payload with a request body (render: request) has its body
checked too (paths "request.…"); a job with render: request and no next has
its final turn judged as the renderer will judge it.

--format checks a provider request body instead (FORMAT: anthropic-messages,
bedrock-converse, openai-chat, openai-responses, gemini, mistral): the rules
a body can break that the messages cannot show, the final turn by the
model's prefill rule (the body's "model", else --target's), the system text,
and every tool name as sent.

--target overrides the file's target; the context window (which sets
Anthropic's per-request image cap) is --context-window-tokens, else the
file's options.context_window_tokens, else unknown (the smaller cap).

The last rule is the context window (issue 30): the messages, with the
job's system prompt and tools, counted by the target's tokenizer (or its
calibrated bound, internal/tokens), plus the output reserved, must fit the
model's window: --context-window-tokens, else options.context_window_tokens,
else the configuration's context.window_tokens, else the model table's
(contract.Model); the reserve is --max-output-tokens, else
options.max_output_tokens, else context.max_output_tokens, else the
model's default output. A line "tokens: N of ROOM (TOKENIZER; a W-token
window, R reserved for output): fits|over" follows the verdict.

Exit status: 0 when the messages meet the contract (one line "ok: FAMILY"
on standard output, and the tokens line); 2 when they do not (the violations on standard output,
a summary on stderr) or the input is not a job or payload; 1 on a runtime
failure or a bug (internal_error: a panic, never bad input).

Flags:
`

func checkCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "", "check for `PROVIDER/API/MODEL` instead of the file's target")
	window := fs.Int("context-window-tokens", 0, "the model's context window in `TOKENS` (0: the file's options, else unknown)")
	maxOutput := fs.Int("max-output-tokens", 0, "the output `TOKENS` reserved in the window (0: the file's options, else the model's default)")
	format := fs.String("format", "", "check a provider request body of `FORMAT` (anthropic-messages, bedrock-converse, openai-chat, openai-responses, gemini, mistral)")
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
	var override transcript.Target
	if *target != "" {
		parsed, err := policy.ParseTarget(*target)
		if err != nil {
			fmt.Fprintf(stderr, "worker check: --target: %v\n", err)
			return exitUsage
		}
		override = parsed
	}
	if *format != "" {
		return checkBody(*format, input, override.Model, stdout, stderr)
	}
	in, err := decodeForCheck(input, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "worker check: %v\n", err)
		return exitUsage
	}
	tg, fileWindow := in.target, in.window
	if *target != "" {
		tg = override
	}
	if tg.Validate() != nil {
		fmt.Fprintln(stderr, "worker check: target: required, with a provider or an api (or pass --target)")
		return exitUsage
	}
	if *window <= 0 {
		*window = fileWindow
	}
	if *maxOutput <= 0 {
		*maxOutput = in.maxOutput
	}
	c := policy.Resolve(tg).Contract
	res := contract.Check(in.msgs, c, *window)
	budget := checkBudget(tg, cfg, *window, *maxOutput)
	tokens := budget.Count(in.msgs, in.system, in.tools).Total
	contract.CheckTokens(&res, budget, tokens)
	if in.judgeFinal && in.requestFormat == "" {
		if _, err := wire.FinalTurn(policy.Resolve(tg), in.msgs, transcript.Options{Render: wire.RenderRequest, Continue: in.continues}); err != nil {
			res = res.Join("", contract.Result{Total: 1, Counts: map[string]int{contract.RuleFinalTurn: 1},
				Violations: []contract.Violation{{Rule: contract.RuleFinalTurn, Path: fmt.Sprintf("messages[%d]", len(in.msgs)-1), Msg: err.Error()}}})
		}
	}
	if in.requestFormat != "" {
		f, err := contract.ParseBodyFormat(in.requestFormat)
		if err != nil {
			fmt.Fprintf(stderr, "worker check: request_format: %v\n", err)
			return exitUsage
		}
		body, err := contract.CheckBody(f, in.request, tg.Model)
		if err != nil {
			fmt.Fprintf(stderr, "worker check: request: %v\n", err)
			return exitUsage
		}
		res = res.Join("request.", body)
	}
	if res.OK() {
		fmt.Fprintf(stdout, "ok: %s\n%s\n", c.Family, budget.Figures(tokens))
		return exitOK
	}
	printViolations(stdout, res)
	fmt.Fprintln(stdout, budget.Figures(tokens))
	fmt.Fprintf(stderr, "worker check: unsendable to %s (%s): %s\n", tg, c.Family, res.Summary())
	return exitUsage
}

// checkBudget is the token budget `worker check` checks against: the
// pipeline's (stage.BudgetFor) with the window and the reserve the flags
// or the file give (0: not given).
func checkBudget(tg transcript.Target, cfg config.Config, window, maxOutput int) contract.Budget {
	s := stage.Settings{Context: cfg.Context}
	if window > 0 {
		s.Request.ContextWindowTokens = &window
	}
	if maxOutput > 0 {
		s.Context.MaxOutputTokens = maxOutput
	}
	return stage.BudgetFor(tg, s, nil)
}

// checkBody is `worker check --format`: a provider request body checked
// against the body rules (contract.CheckBody).
func checkBody(format string, input []byte, model string, stdout, stderr io.Writer) int {
	f, err := contract.ParseBodyFormat(format)
	if err != nil {
		fmt.Fprintf(stderr, "worker check: --format: %v\n", err)
		return exitUsage
	}
	res, err := contract.CheckBody(f, input, model)
	if err != nil {
		fmt.Fprintf(stderr, "worker check: %v\n", err)
		return exitUsage
	}
	if res.OK() {
		fmt.Fprintf(stdout, "ok: %s\n", f)
		return exitOK
	}
	printViolations(stdout, res)
	fmt.Fprintf(stderr, "worker check: unsendable as %s: %s\n", f, res.Summary())
	return exitUsage
}

// printViolations writes each listed violation as "path: what [rule]".
func printViolations(stdout io.Writer, res contract.Result) {
	for _, v := range res.Violations {
		fmt.Fprintf(stdout, "%s [%s]\n", v, v.Rule)
	}
	if res.Total > len(res.Violations) {
		fmt.Fprintf(stdout, "... and %d more\n", res.Total-len(res.Violations))
	}
}

// checkInput is what `worker check` reads of a job or payload.
type checkInput struct {
	msgs   []*transcript.Message
	target transcript.Target // zero when absent
	window int               // options.context_window_tokens, 0 when absent
	// maxOutput is options.max_output_tokens, 0 when absent; system and
	// tools the options system and tools (contract.FixedParts).
	maxOutput     int
	system, tools []byte
	// judgeFinal: a job that asks for a request body and gives no next,
	// whose final turn the renderer will judge (wire.FinalTurn); continues
	// is its option continue.
	judgeFinal, continues bool
	// request and requestFormat are a payload's body and its format ("" when none).
	request       []byte
	requestFormat string
}

// decodeForCheck reads the messages, target, context window and request
// body of a job or a ready payload. Unlike a job's decoder it accepts the
// payload's extra members (report, append_entries); the messages are
// validated as the codec validates them.
func decodeForCheck(input []byte, cfg config.Config) (checkInput, error) {
	var in checkInput
	top, err := transcript.ParseObject(input)
	if err != nil {
		return in, fmt.Errorf("not a JSON object: %v", err)
	}
	if rawTarget, ok := top.Get("target"); ok {
		tgObj, err := transcript.ParseObject(rawTarget)
		if err != nil {
			return in, fmt.Errorf("target: %v", err)
		}
		in.target.Provider, _ = tgObj.String("provider")
		in.target.API, _ = tgObj.String("api")
		in.target.Model, _ = tgObj.String("model")
	}
	rawMessages, ok := top.Get("messages")
	if !ok {
		if rawMessages, ok, err = requestMessages(&top, transcript.Target(in.target)); err != nil {
			return in, err
		}
	}
	if !ok {
		return in, errors.New("messages: required")
	}
	if err := transcript.Valid(rawMessages, cfg.Limits.MaxDepth); err != nil {
		return in, fmt.Errorf("messages: %v", err)
	}
	t, err := transcript.FromMessages(rawMessages, transcript.Target(in.target))
	if err != nil {
		return in, fmt.Errorf("messages: %v", err)
	}
	in.msgs = t.Messages
	if rawOptions, ok := top.Get("options"); ok {
		if opts, err := transcript.ParseObject(rawOptions); err == nil {
			if raw, ok := opts.Get("context_window_tokens"); ok {
				in.window, _ = strconv.Atoi(string(raw))
			}
			if raw, ok := opts.Get("max_output_tokens"); ok {
				in.maxOutput, _ = strconv.Atoi(string(raw))
			}
			var o transcript.Options
			if json.Unmarshal(rawOptions, &o) == nil {
				in.system, in.tools = contract.FixedParts(o)
			}
			render, _ := opts.String("render")
			in.judgeFinal = render == wire.RenderRequest && !opts.Has("next")
			in.continues, _ = opts.Bool("continue")
		}
	}
	if body, ok := top.Get("request"); ok {
		in.request = body
		in.requestFormat, _ = top.String("request_format")
		if in.requestFormat == "" {
			return in, errors.New("request: a body without its request_format")
		}
	}
	return in, nil
}

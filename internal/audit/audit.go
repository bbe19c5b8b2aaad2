package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/replay"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/toolcalls"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// Outcomes of a Session besides the dead-letter codes (package deadletter:
// the codes `worker run` gives the same jobs, unreadable for a file that
// cannot be read, invalid_target for a session with no assistant turn naming
// a target and no --target).
const (
	OutcomeReady       = "ready"
	OutcomeInterrupted = "interrupted" // the run was stopped (Run then returns the context's error)
)

// Tenant is the tenant a session file is processed as (the one `worker
// replay` writes by default); a job keeps its own.
const Tenant = "offline"

// Options configure an audit.
type Options struct {
	// Inputs are directories and files, found as `worker replay` finds
	// them (replay.Discover). A file named *.json or *.json.zst is a job;
	// every other file is a session file.
	Inputs []string
	// Targets to audit each input for; none: the input's own target (a
	// session's last assistant turn, as replay chooses it; a job's target).
	Targets []transcript.Target
	// Limits bound the decode of a session file.
	Limits transcript.Limits
	// Read returns a file's bytes, decompressed.
	Read func(path string) ([]byte, error)
	// DecodeJob decodes a job as the worker does (pipeline.Processor.DecodeJob).
	DecodeJob func([]byte) (*transcript.Transcript, error)
	// Process runs the worker's pipeline (pipeline.Processor.Sanitize).
	Process func(context.Context, *transcript.Transcript) (pipeline.Outcome, error)
	// Context is the configuration's context section: the window and the
	// output reserve the figures of Session.Context are taken against
	// (a job's options win, as in the worker).
	Context settings.Context
	// Concurrency is how many files are audited at once (at least 1).
	Concurrency int
	// Progress, when set and Terminal, shows a live bar of the files done.
	Progress io.Writer
	Terminal bool
}

// Count is how many tool calls (or results) the input had and the sanitized
// output has; Added counts output ones with no input counterpart.
type Count struct {
	In    int `json:"in"`
	Out   int `json:"out"`
	Added int `json:"added"`
}

// Session is the audit of one input for one target.
type Session struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"` // "session" or "job"
	Target  string `json:"target"`
	Outcome string `json:"outcome"`
	Stage   string `json:"stage,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Calls   Count  `json:"calls"`
	Results Count  `json:"results"`
	Drops   []Drop `json:"drops"`
	// ValidDrops counts the drops of class valid_call_dropped.
	ValidDrops int `json:"valid_drops"`
	// Parts counts, by kind, the parts that did not reach the target as
	// they were: dropped, or replaced by a text that names them (partsOf).
	Parts   map[string]PartCount `json:"parts,omitempty"`
	Request *RequestCheck        `json:"request"`
	// Context is the request's tokens against the target model's context
	// window (issue 30): the report's context_fit when the worker counted
	// the history over the window (what the fit trimmed and dropped, or
	// refused), else the payload's own count, which fits as it is. Absent
	// when the job was refused before the rules ran.
	Context *stage.ContextFitReport `json:"context,omitempty"`
}

// Report is the audit of every input for every target, in input order
// (then target order).
type Report struct {
	Sessions []Session `json:"sessions"`
	Totals   Totals    `json:"totals"`
}

// Totals sums a Report.
type Totals struct {
	Sessions     int            `json:"sessions"`
	Ready        int            `json:"ready"`
	Outcomes     map[string]int `json:"outcomes"`
	Calls        Count          `json:"calls"`
	Results      Count          `json:"results"`
	DropsByClass map[string]int `json:"drops_by_class"`
	ValidDrops   int            `json:"valid_drops"`
	// PartsByKind sums the sessions' Parts.
	PartsByKind     map[string]PartCount `json:"parts_by_kind"`
	RequestFailures int                  `json:"request_failures"`
}

// Run audits every input for every target. Its error is a discovery
// failure or the context's; a file that cannot be read is a Session with
// the outcome of replay.ReadCode (unreadable, or the worker's code for bytes
// it would refuse).
func Run(ctx context.Context, opts Options) (Report, error) {
	opts.Limits = opts.Limits.WithDefaults()
	files, err := replay.Discover(opts.Inputs)
	if err != nil {
		return Report{}, err
	}
	bar := newBar(opts.Progress, opts.Terminal, len(files))
	perFile := make([][]Session, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(opts.Concurrency, 1) {
		wg.Go(func() {
			for i := range next {
				perFile[i] = auditFile(ctx, opts, files[i].Path)
				bar.add()
			}
		})
	}
feed:
	for i := range files {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	bar.finish()
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	var rep Report
	for _, ss := range perFile {
		rep.Sessions = append(rep.Sessions, ss...)
	}
	rep.Totals = totalsOf(rep.Sessions)
	return rep, nil
}

// isJob reports whether a file is a job rather than a session file.
func isJob(path string) bool {
	return strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".json.zst")
}

// auditFile audits one file for each target (its own when none is given).
func auditFile(ctx context.Context, opts Options, path string) []Session {
	kind := "session"
	if isJob(path) {
		kind = "job"
	}
	targets := opts.Targets
	if len(targets) == 0 {
		targets = []transcript.Target{{}} // the zero target: the input's own
	}
	out := make([]Session, 0, len(targets))
	data, err := opts.Read(path)
	for _, tg := range targets {
		s := Session{Path: path, Kind: kind, Target: targetName(tg), Drops: []Drop{}}
		switch {
		case err != nil:
			s.Outcome, s.Reason = string(replay.ReadCode(err)), err.Error()
		default:
			auditGuarded(ctx, opts, data, tg, &s)
		}
		out = append(out, s)
	}
	return out
}

func targetName(tg transcript.Target) string {
	if tg == (transcript.Target{}) {
		return ""
	}
	return tg.Provider + "/" + tg.API + "/" + tg.Model
}

// auditGuarded is auditOne with a panic (in decode, a stage or the
// renderer) turned into the outcome internal_error, so one bad file does
// not end the audit of the others.
func auditGuarded(ctx context.Context, opts Options, data []byte, tg transcript.Target, s *Session) {
	defer func() {
		if p := recover(); p != nil {
			s.Outcome, s.Reason = string(deadletter.CodeInternalError), fmt.Sprintf("panic: %v", p)
		}
	}()
	auditOne(ctx, opts, data, tg, s)
}

// nextPrompt is the turn the audit gives a history that does not end with
// a user turn (job option next), as a runner does with its user's next
// prompt: most real sessions end with the assistant's answer (or with turns
// the repair removes, such as orphaned results), and a request body must
// not (contract.PrefillOf), so without it such a session would be judged
// unsendable on Claude 4.6 and Mistral for a turn no runner would send.
var nextPrompt = json.RawMessage(`[{"role":"user","content":"(the next user prompt)"}]`)

// endsWithUser reports whether the last message is a user turn.
func endsWithUser(msgs []*transcript.Message) bool {
	return len(msgs) > 0 && msgs[len(msgs)-1].Role() == transcript.RoleUser
}

// auditOne decodes data for target tg (zero: the input's own), runs the
// pipeline with render: request and fills s.
func auditOne(ctx context.Context, opts Options, data []byte, tg transcript.Target, s *Session) {
	t, ok := decode(opts, data, tg, s)
	if !ok {
		return
	}
	s.Target = targetName(t.Target)
	t.Options.Render = wire.RenderRequest
	if len(t.Options.Next) == 0 && !endsWithUser(t.Messages) {
		t.Options.Next = nextPrompt
	}
	pol := policy.Resolve(t.Target)
	in := inventoryOf(t.Messages)
	if s.Kind == "session" && len(t.Options.Tools) == 0 {
		t.Options.Tools = toolsOf(in, pol.Contract.ToolNames)
	}
	// A bad option is Process's invalid_job outcome (no rule runs).
	opt, _ := settings.DecodeOptions(t.Options.Settings)
	req := opt.Request
	r := rules{names: pol.Contract.ToolNames, toolsAsText: wire.ToolsAsText(pol, t.Options) || req.NoToolsOffered()}
	if pol.AllowProviderOwnedThinkingReplay() {
		r.verifier = policy.Signer(pol.Provider, pol.Model)
	}
	r.allowed = allowedNames(req.AllowedToolNames, pol.Contract.ToolNames)
	s.Calls.In, s.Results.In = len(in.calls), len(in.results)
	outcome, err := opts.Process(ctx, t)
	if err != nil { // only ever the context's: Run reports it
		s.Outcome, s.Reason = OutcomeInterrupted, err.Error()
		return
	}
	if outcome.Report != nil {
		s.Parts = partsOf(outcome.Report.Stages)
		s.Context = outcome.Report.ContextFit
	}
	if !outcome.Ready {
		s.Outcome, s.Stage = string(outcome.Code), outcome.Stage
		s.Reason = deadletter.Sentence(outcome.Error)
		return
	}
	s.Outcome = OutcomeReady
	if s.Context == nil {
		s.Context = figures(t, stage.BudgetFor(t.Target, stage.Settings{Request: req, Context: opts.Context}, nil))
	}
	res := inventoryOf(t.Messages)
	v := classify(in, r)
	m := match(in, res, v)
	s.Calls.Out, s.Calls.Added = len(res.calls), m.addedCalls
	s.Results.Out, s.Results.Added = len(res.results), m.addedResults
	s.Drops = drops(in, m, v)
	for _, d := range s.Drops {
		if d.Valid() {
			s.ValidDrops++
		}
	}
	if t.Request != nil {
		rc := checkRequest(wire.Format(t.Request.Format), t.Request.Body, pol.Contract)
		if !r.toolsAsText && (rc.Calls != len(res.calls) || rc.Results != len(res.results)) {
			rc.Violations = append(rc.Violations, fmt.Sprintf("request: it carries %d tool calls and %d results, the sanitized messages %d and %d",
				rc.Calls, rc.Results, len(res.calls), len(res.results)))
			rc.OK = false
		}
		s.Request = &rc
	}
}

// figures are the context figures of a payload the fit left as it was:
// its own count against the budget.
func figures(t *transcript.Transcript, b contract.Budget) *stage.ContextFitReport {
	if !b.Active() {
		return nil
	}
	system, tools := contract.FixedParts(t.Options)
	n := b.Count(t.Messages, system, tools).Total
	return &stage.ContextFitReport{Tokenizer: b.Counter.Name(), Window: b.Window, Reserve: b.Reserve,
		Room: b.Room(), TokensBefore: n, TokensAfter: n, Fits: n <= b.Room()}
}

// toolsOf is the tools a session's runner offered, as far as the history
// shows: each valid name its calls use, once, with the permissive schema. A
// session file names no tools, and a request that offers none carries the
// tool history as text on some wires (Bedrock Converse); the runner of the
// switched session would offer its tools.
func toolsOf(in inventory, names contract.IDLimits) []transcript.Tool {
	var tools []transcript.Tool
	seen := map[string]bool{}
	for _, c := range in.calls {
		if !seen[c.name] && validName(c.name, names) {
			seen[c.name] = true
			tools = append(tools, transcript.Tool{Name: c.name})
		}
	}
	return tools
}

// decode reads data as a job or a session for tg; on failure it fills s.
func decode(opts Options, data []byte, tg transcript.Target, s *Session) (*transcript.Transcript, bool) {
	own := tg == (transcript.Target{})
	if s.Kind == "job" {
		t, err := opts.DecodeJob(data)
		if err != nil {
			s.Outcome, s.Stage, s.Reason = decodeCode(err), pipeline.StageDecode, err.Error()
			return nil, false
		}
		if !own {
			t.SetTarget(tg)
		}
		return t, true
	}
	decodeTarget := tg
	if own {
		decodeTarget = transcript.Target{Provider: "unset"}
	}
	t, err := transcript.DecodeSession(data, decodeTarget, opts.Limits)
	if err != nil {
		s.Outcome, s.Stage, s.Reason = decodeCode(err), pipeline.StageDecode, err.Error()
		return nil, false
	}
	if own {
		last, ok := replay.LastAssistantTarget(t)
		if !ok {
			s.Outcome, s.Reason = string(deadletter.CodeInvalidTarget), "no assistant turn names a provider or api; pass --target"
			return nil, false
		}
		t.SetTarget(last)
	}
	t.Tenant = Tenant
	return t, true
}

// decodeCode is the dead-letter code of a decode error (invalid_job for an
// error without one).
func decodeCode(err error) string {
	if code := transcript.ErrorCode(err); code != "" {
		return string(code)
	}
	return string(deadletter.CodeInvalidJob)
}

// totalsOf sums the sessions.
func totalsOf(ss []Session) Totals {
	tot := Totals{Sessions: len(ss), Outcomes: map[string]int{}, DropsByClass: map[string]int{}, PartsByKind: map[string]PartCount{}}
	for _, s := range ss {
		tot.Outcomes[s.Outcome]++
		if s.Outcome == OutcomeReady {
			tot.Ready++
		}
		tot.Calls.In += s.Calls.In
		tot.Calls.Out += s.Calls.Out
		tot.Calls.Added += s.Calls.Added
		tot.Results.In += s.Results.In
		tot.Results.Out += s.Results.Out
		tot.Results.Added += s.Results.Added
		for _, d := range s.Drops {
			tot.DropsByClass[d.Class]++
		}
		tot.ValidDrops += s.ValidDrops
		for kind, c := range s.Parts {
			t := tot.PartsByKind[kind]
			t.Dropped += c.Dropped
			t.Replaced += c.Replaced
			tot.PartsByKind[kind] = t
		}
		if s.Request != nil && !s.Request.OK {
			tot.RequestFailures++
		}
	}
	return tot
}

// allowedNames is allowed_tool_names as the chain reads it, lower-cased and
// trimmed: each name, and for a name the target refuses (limits) its wire
// forms too (toolcalls.WireForms), which an already sanitized history
// carries and the chain keeps (issue 29). nil when there is no list.
func allowedNames(names []string, limits contract.IDLimits) []string {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		out = append(out, strings.ToLower(n))
		if n != "" && !limits.Valid(n) {
			for _, w := range toolcalls.WireForms(n, limits) {
				out = append(out, strings.ToLower(w))
			}
		}
	}
	return out
}

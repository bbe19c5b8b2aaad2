package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// TracerName is the instrumentation scope of the stage spans.
const TracerName = "github.com/hygiene-dev/hygiene/internal/pipeline"

// StageDecode names the decode of a job in an Outcome: its record's
// decompression and JSON, and the preparation of its settings and options,
// whose refusals are of the job's own fields (jobSteps).
const StageDecode = "decode"

// StageEncode names the encoding of the ready payload after the stages in
// an Outcome.
const StageEncode = "encode"

// StageRender names the request rendering after the stages (render: request)
// in the stage timings.
const StageRender = "render_request"

// Outcome is what one job became: a ready payload, or a dead letter with a
// code, a sentence and the stage that refused it.
type Outcome struct {
	Ready   bool
	Payload []byte          // the ready payload (uncompressed JSON) when Ready
	Code    deadletter.Code // dead-letter code when !Ready
	Error   string          // one sentence naming the field or message index
	Stage   string          // the failing stage, or "decode"
	Tenant  string          // the job's tenant when it was decoded
	JobID   string          // the job's id when it was decoded
	// Report is the chain's report when Ready, and on a dead letter a
	// stage rejected (the contract's violations, which the runner counts).
	Report *stage.Report
	// ownPayload is set on every ready outcome of the processor's steps:
	// Payload, when set, is a buffer made for this outcome alone, which the
	// runner may reuse once the payload is written (Runner.recycle).
	ownPayload bool
}

// Deps are what the processor runs besides the configuration.
type Deps struct {
	// Stages is the rule chain, normally stages.Default(...).
	Stages []stage.Stage
	// Observe, when set, returns the function told how long the named
	// stage took on each job. The processor asks once per stage, when it
	// is made (metrics.Metrics.StageObserver), so that observing a job
	// looks nothing up.
	Observe func(stage string) func(time.Duration)
	// Fanout, when set, splits the work of large histories across its
	// helpers (stage.Env.Fanout); nil runs every job on its own goroutine.
	Fanout stage.Fanout
}

// Processor turns one job record into its Outcome, step by step (jobSteps,
// steps.go): bounded decompression and decode, a request body's parse, the
// job's settings and options, the stage chain, the render and the ready
// payload. It is
// safe for concurrent use and holds no per-job state (only the last
// target's facts, which every job of that target shares), so the same
// record always gives the same bytes.
type Processor struct {
	limits  config.LimitsConfig
	resolve Resolver
	deps    Deps
	steps   []step // jobSteps: the whole job, deps.Stages in it
	// lastTarget is what the target of the last job prepared decides
	// (targetOf): most jobs name the target of the job before them.
	lastTarget atomic.Pointer[targetFacts]
	// observeRender is deps.Observe's function of StageRender (nil
	// without an observer).
	observeRender func(time.Duration)
}

// targetFacts are what a job's target alone decides: its policy
// (policy.Resolve) and what its token budget reads of it
// (stage.ModelOf). Neither is written after it is made, so the jobs
// that follow with the same target share them.
type targetFacts struct {
	target transcript.Target
	policy policy.Policy
	model  stage.BudgetModel
}

// targetOf returns tg's targetFacts: those of the last job's target when
// tg is the same, else made and kept for the jobs that follow.
func (p *Processor) targetOf(tg transcript.Target) *targetFacts {
	if f := p.lastTarget.Load(); f != nil && f.target == tg {
		return f
	}
	f := &targetFacts{target: tg, policy: policy.Resolve(tg), model: stage.ModelOf(tg)}
	p.lastTarget.Store(f)
	return f
}

// NewProcessor returns a processor that bounds each record by limits and
// resolves each job's settings with resolve. It starts nothing.
func NewProcessor(limits config.LimitsConfig, resolve Resolver, deps Deps) *Processor {
	p := &Processor{limits: limits, resolve: resolve, deps: deps}
	if deps.Observe != nil {
		p.observeRender = deps.Observe(StageRender)
	}
	p.steps = p.jobSteps()
	return p
}

// instrumented wraps a stage in what every stage gets, as a middleware: a
// tracing span (a child of the job's span when ctx carries a recording one;
// none otherwise: even a no-op span would cost a context per stage of every
// job), its duration told to the stage's observer (observe's function of
// its name, when observe is set), and a panic turned into an error that
// names the stage.
func instrumented(s stage.Stage, observe func(string) func(time.Duration)) stage.Stage {
	apply := s.Apply
	var record func(time.Duration)
	if observe != nil {
		record = observe(s.Name)
	}
	return stage.Stage{Name: s.Name, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) (err error) {
		var start time.Duration
		if record != nil { // a clock read per rule only when told to
			start = sinceLoad()
		}
		var span trace.Span
		if job := trace.SpanFromContext(ctx); job.IsRecording() {
			ctx, span = job.TracerProvider().Tracer(TracerName).Start(ctx, s.Name)
		}
		defer func() {
			if r := recover(); r != nil {
				err = errors.New(deadletter.WithStack(fmt.Sprintf("stage %s panicked: %v", s.Name, r), debug.Stack()))
			}
			if span != nil {
				if err != nil {
					span.SetStatus(codes.Error, err.Error())
				}
				span.End()
			}
			if record != nil {
				record(sinceLoad() - start)
			}
		}()
		return apply(ctx, t, env)
	}}
}

// loaded is when the package was loaded: the origin of sinceLoad.
var loaded = time.Now()

// sinceLoad is the monotonic time since the package was loaded, the clock
// of the stage timings: one clock read, where time.Now reads the wall
// clock as well.
func sinceLoad() time.Duration { return time.Since(loaded) }

// Recovered is the outcome of a bug: a value recovered from a panic in
// stage (a decode, a rule, the render, the encode, or the runner). It is an
// internal_error dead letter naming the stage, never the code of bad input:
// the worker dead-letters it, and the commands exit 1 on it. The error
// holds the panic and the first frames of the stack, so call Recovered in
// the deferred function that recovered.
func Recovered(stage string, r any) Outcome {
	return Outcome{Code: deadletter.CodeInternalError, Stage: stage,
		Error: deadletter.WithStack(fmt.Sprintf("%s panicked: %v", stage, r), debug.Stack())}
}

// Process runs one job: the steps of jobSteps over rec. Its error is only
// ever the context's: bad input and bugs (panics included, wherever they
// happen: decode, the stages, render, encode) become dead-letter outcomes.
// The job's tapes go back to the pool when it ends: the outcome holds no
// view of them (the payload is a fresh buffer).
func (p *Processor) Process(ctx context.Context, rec transport.Record) (Outcome, error) {
	return p.process(ctx, rec, nil)
}

// ProcessTo is Process writing the ready payload to w as it is encoded
// (transcript.WritePayload), never held whole, instead of into the
// Outcome's Payload, which stays nil: a long history then keeps its input
// and its tapes live, not a payload of their size beside them. Nothing is
// written unless the job is ready. Its error is the context's, or the
// write's (the payload is then cut short).
func (p *Processor) ProcessTo(ctx context.Context, rec transport.Record, w io.Writer) (Outcome, error) {
	return p.process(ctx, rec, w)
}

// process runs every step over rec, its payload written to out when set,
// and returns the job's tapes to the pool when it ends, and its state
// (jobStates).
func (p *Processor) process(ctx context.Context, rec transport.Record, out io.Writer) (Outcome, error) {
	j := jobStates.Get().(*jobState)
	*j = jobState{value: rec.Value, enc: rec.ContentEncoding(), out: out}
	defer func() {
		if j.t != nil {
			j.t.Release()
		}
		*j = jobState{} // nothing of the job stays reachable from the pool
		jobStates.Put(j)
	}()
	return runWritten(ctx, j, p.steps)
}

// jobStates holds the states of finished jobs for the jobs that follow: a
// job's state is not a new allocation, and the Outcome holds none of it
// (its payload and report are the job's own).
var jobStates = sync.Pool{New: func() any { return new(jobState) }}

// runWritten is runSteps, whose Outcome gives way to the payload's write
// error (ProcessTo, SanitizeTo).
func runWritten(ctx context.Context, j *jobState, steps []step) (Outcome, error) {
	out, err := runSteps(ctx, j, steps)
	if err == nil && j.writeErr != nil {
		return Outcome{}, j.writeErr
	}
	return out, err
}

// DecodeJob decodes a job under the processor's limits, its message array
// parsed in chunks across the fanout's helpers when the job is large
// (pipeline.fanout_min_bytes); the result, or the error, is the sequential
// decode's (transcript.DecodeJobParallel).
func (p *Processor) DecodeJob(value []byte) (*transcript.Transcript, error) {
	lim := transcript.Limits{
		MaxBytes:    int(p.limits.MaxJobBytes),
		MaxMessages: p.limits.MaxMessages,
		MaxDepth:    p.limits.MaxDepth,
	}
	var par transcript.Parallel
	if fan := p.deps.Fanout; fan != nil {
		par = codecParallel(fan, fan.ChunksForBytes(len(value)))
	}
	return transcript.DecodeJobParallel(value, lim, par)
}

// codecPartsPerChunk is how many parts the decode and the encode cut a job
// into per goroutine of its fanout: more parts than goroutines, taken as
// each goroutine comes free, so a goroutine that gets less of a shared core
// does not hold the job back (the others take its parts), while a part of
// a job above the thresholds is still a megabyte or more.
const codecPartsPerChunk = 4

// codecParallel is the split of a decode or encode over chunks goroutines
// of fan (none for 1).
func codecParallel(fan stage.Fanout, chunks int) transcript.Parallel {
	if chunks <= 1 {
		return transcript.Parallel{}
	}
	return transcript.Parallel{Chunks: chunks * codecPartsPerChunk, Run: fan.Run}
}

// Sanitize runs the steps of jobSteps after the decode over a decoded
// transcript: the part of Process shared with `worker sanitize`, `worker
// replay` and `worker audit`, which decode their input themselves. Like
// Process, its error is only ever the context's; a panic is an
// internal_error outcome naming the step it happened in (Recovered).
func (p *Processor) Sanitize(ctx context.Context, t *transcript.Transcript) (Outcome, error) {
	return runSteps(ctx, &jobState{t: t}, p.steps[decoded:])
}

// SanitizeTo is Sanitize writing the ready payload to w as ProcessTo does.
// The transcript stays the caller's to release.
func (p *Processor) SanitizeTo(ctx context.Context, t *transcript.Transcript, w io.Writer) (Outcome, error) {
	return runWritten(ctx, &jobState{t: t, out: w}, p.steps[decoded:])
}

// renderRequest adds the provider request body to the payload (job option
// render: request), from the sanitized messages; an error is a history the
// target cannot take as it ends (wire.FinalTurn).
func renderRequest(t *transcript.Transcript, p policy.Policy) error {
	final, err := wire.FinalTurn(p, t.Messages, t.Options)
	if err != nil {
		return err
	}
	f := wire.FormatFor(p)
	body := wire.Render(nil, f, p, t.Messages, wire.Request{System: t.Options.System, Tools: t.Options.Tools, Final: final})
	t.Request = &transcript.Request{Format: string(f), Body: body}
	return nil
}

// messagesChanged reports whether the output list differs from the input:
// other entries, or an entry that a rule edited.
func messagesChanged(in, out []*transcript.Message) bool {
	if len(in) != len(out) {
		return true
	}
	for i := range in {
		if in[i] != out[i] || out[i].Changed() {
			return true
		}
	}
	return false
}

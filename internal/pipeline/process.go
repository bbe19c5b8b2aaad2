package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/turns"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// TracerName is the instrumentation scope of the stage spans.
const TracerName = "github.com/hygiene-dev/hygiene/internal/pipeline"

// StageDecode names the step before the stages in an Outcome.
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
	Code    transcript.Code // dead-letter code when !Ready
	Error   string          // one sentence naming the field or message index
	Stage   string          // the failing stage, or "decode"
	Tenant  string          // the job's tenant when it was decoded
	JobID   string          // the job's id when it was decoded
	// Report is the chain's report when Ready, and on a dead letter a
	// stage rejected (the contract's violations, which the runner counts).
	Report *stage.Report
}

// Deps are what the processor runs besides the configuration.
type Deps struct {
	// Stages is the rule chain, normally stages.Default(...).
	Stages []stage.Stage
	// Observe, when set, is told how long each stage took.
	Observe func(stage string, d time.Duration)
	// Fanout, when set, splits the work of large histories across its
	// helpers (stage.Env.Fanout); nil runs every job on its own goroutine.
	Fanout stage.Fanout
}

// Processor turns one job record into its Outcome: bounded decompression,
// decode, policy resolution, the stage chain, and the ready payload. It is
// safe for concurrent use and holds no per-job state, so the same record
// always gives the same bytes.
type Processor struct {
	limits  config.LimitsConfig
	resolve Resolver
	deps    Deps
	chain   []stage.Stage // deps.Stages, each wrapped by instrumented
}

// NewProcessor returns a processor that bounds each record by limits and
// resolves each job's settings with resolve. It starts nothing.
func NewProcessor(limits config.LimitsConfig, resolve Resolver, deps Deps) *Processor {
	chain := make([]stage.Stage, len(deps.Stages))
	for i, s := range deps.Stages {
		chain[i] = instrumented(s, deps.Observe)
	}
	return &Processor{limits: limits, resolve: resolve, deps: deps, chain: chain}
}

// instrumented wraps a stage in what every stage gets, as a middleware: a
// tracing span (a child of the job's span when ctx carries a recording one;
// none otherwise: even a no-op span would cost a context per stage of every
// job), its duration told to observe (when set), and a panic turned into an
// error that names the stage.
func instrumented(s stage.Stage, observe func(string, time.Duration)) stage.Stage {
	apply := s.Apply
	return stage.Stage{Name: s.Name, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) (err error) {
		start := time.Now()
		var span trace.Span
		if job := trace.SpanFromContext(ctx); job.IsRecording() {
			ctx, span = job.TracerProvider().Tracer(TracerName).Start(ctx, s.Name)
		}
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("stage %s panicked: %v\n%s", s.Name, r, firstFrames(debug.Stack(), 12))
			}
			if span != nil {
				if err != nil {
					span.SetStatus(codes.Error, err.Error())
				}
				span.End()
			}
			if observe != nil {
				observe(s.Name, time.Since(start))
			}
		}()
		return apply(ctx, t, env)
	}}
}

// Recovered is the outcome of a bug: a value recovered from a panic in
// stage (a decode, a rule, the render, the encode, or the runner). It is an
// internal_error dead letter naming the stage, never the code of bad input:
// the worker dead-letters it, and the commands exit 1 on it. The error
// holds the panic and the first frames of the stack, so call Recovered in
// the deferred function that recovered.
func Recovered(stage string, r any) Outcome {
	return Outcome{Code: transcript.CodeInternalError, Stage: stage,
		Error: fmt.Sprintf("%s panicked: %v\n%s", stage, r, firstFrames(debug.Stack(), 12))}
}

// Process runs one job. Its error is only ever the context's: bad input and
// bugs (panics included, wherever they happen: decode, the stages, render,
// encode) become dead-letter outcomes.
func (p *Processor) Process(ctx context.Context, rec transport.Record) (out Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = Recovered(StageDecode, r), nil
		}
	}()
	if max := p.limits.MaxCompressedBytes; max > 0 && int64(len(rec.Value)) > max {
		return Outcome{Code: transcript.CodePayloadTooLarge, Stage: StageDecode,
			Error: fmt.Sprintf("record value is %d bytes, over limits.max_compressed_bytes %d", len(rec.Value), max)}, nil
	}
	value, err := compression.Decode(rec.Value, rec.ContentEncoding(), p.limits.MaxJobBytes)
	if err != nil {
		return decompressionOutcome(err), nil
	}
	t, err := p.DecodeJob(value)
	if err != nil {
		return Outcome{Code: transcript.ErrorCode(err), Error: err.Error(), Stage: StageDecode}, nil
	}
	defer t.Release() // the tapes go back to the pool: the outcome holds no view of them (the payload is a fresh buffer)
	return p.Run(ctx, t)
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

// Run runs the stage chain over a decoded transcript and encodes the ready
// payload. It is the part of Process shared with `worker sanitize` and
// `worker replay`, which decode their input themselves. A panic in it is
// an internal_error outcome naming where it happened (Recovered): the
// stage (see instrumented), the render, or the encode; one before the
// stages (the request's parse, the job's settings) names the decode.
func (p *Processor) Run(ctx context.Context, t *transcript.Transcript) (out Outcome, err error) {
	phase := StageDecode
	defer func() {
		if r := recover(); r != nil {
			out, err = Recovered(phase, r), nil
			out.Tenant, out.JobID = t.Tenant, t.JobID
		}
	}()
	out = Outcome{Tenant: t.Tenant, JobID: t.JobID}
	var dropped map[string]int
	if t.Input != nil {
		var rej *stage.Reject
		if dropped, rej = p.parseInput(t); rej != nil {
			out.Code, out.Error, out.Stage = rej.Code, rej.Msg, StageParse
			return out, nil
		}
	}
	resolved, err := p.resolve(t)
	if err = errors.Join(err, wire.CheckOptions(t.Options, wire.FormatFor(policy.Resolve(t.Target))), wire.PlaceNext(t)); err != nil {
		out.Code, out.Error, out.Stage = transcript.CodeInvalidJob, err.Error(), StageDecode
		return out, nil
	}
	env := &stage.Env{
		Policy:        policy.Resolve(t.Target),
		Settings:      resolved,
		Report:        stage.NewReport(),
		InputMessages: len(t.Messages),
		Fanout:        p.deps.Fanout,
	}
	reportDropped(env.Report, dropped)
	env.ModelChanged = turns.ModelChanged(t.CustomEntries, env.Policy)
	if wire.ToolsAsText(env.Policy, t.Options) {
		env.Settings.Request.ToolsOffered = new(false)
	}
	if t.Repair != nil {
		env.Report.SessionRepair = &stage.SessionRepairReport{DroppedLines: t.Repair.DroppedLines, KeepPointsMissing: t.Repair.KeepPointsMissing}
	}
	in := t.Messages
	for _, s := range p.chain {
		if err := ctx.Err(); err != nil {
			return Outcome{}, err
		}
		if err := s.Apply(ctx, t, env); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
				return Outcome{}, ctxErr
			}
			if rej, ok := errors.AsType[*stage.Reject](err); ok {
				out.Code, out.Error, out.Stage, out.Report = rej.Code, rej.Msg, s.Name, env.Report
				return out, nil
			}
			out.Code, out.Error, out.Stage = transcript.CodeInternalError, err.Error(), s.Name
			return out, nil
		}
	}
	if t.Options.Render == wire.RenderRequest {
		phase = StageRender
		start := time.Now()
		if err := renderRequest(t, env.Policy); err != nil {
			out.Code, out.Error, out.Stage, out.Report = transcript.CodeUnsendable, err.Error(), StageRender, env.Report
			return out, nil
		}
		if p.deps.Observe != nil {
			p.deps.Observe(StageRender, time.Since(start))
		}
	}
	env.Report.Changed = messagesChanged(in, t.Messages) || len(t.AppendEntries) > 0
	// The messages are encoded first (in chunks for a long history), so the
	// report states their exact size.
	phase = StageEncode
	var par transcript.Parallel
	if fan := p.deps.Fanout; fan != nil {
		par = codecParallel(fan, fan.Chunks(len(t.Messages)))
	}
	msgs := t.EncodeMessages(par)
	env.Report.BytesIn = t.InputBytes
	env.Report.BytesOut = msgs.Size()
	report, err := transcript.Marshal(env.Report)
	if err != nil {
		out.Code, out.Error, out.Stage = transcript.CodeInternalError, fmt.Sprintf("encoding the report: %v", err), StageEncode
		return out, nil
	}
	out.Ready, out.Report = true, env.Report
	out.Payload = t.AppendPayload(nil, msgs, report)
	return out, nil
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

// firstFrames keeps the first n lines of a stack trace, enough to locate a
// bug without flooding a dead-letter header.
func firstFrames(stack []byte, n int) []byte {
	lines := bytes.SplitN(stack, []byte{'\n'}, n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return bytes.Join(lines, []byte{'\n'})
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

func decompressionOutcome(err error) Outcome {
	code := transcript.CodeDecompressionFailed
	if errors.Is(err, compression.ErrTooLarge) {
		code = transcript.CodePayloadTooLarge
	}
	return Outcome{Code: code, Error: err.Error(), Stage: StageDecode}
}

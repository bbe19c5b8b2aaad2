package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/turns"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// step is one named step of a job. Run does it on the job's state; an
// error ends the job (see runSteps): a *stage.Reject is a dead letter with
// its code and sentence, the context's error is the context's, and any
// other error is an internal_error. Name is the Outcome.Stage of either,
// and a panic in Run is Recovered naming it.
type step struct {
	Name string
	Run  func(ctx context.Context, j *jobState) error
}

// jobState is what the steps of one job hand on to each other.
type jobState struct {
	value   []byte                 // the record's value (Process only: Sanitize starts decoded)
	enc     []byte                 // the record's content-encoding header
	t       *transcript.Transcript // the job, once decoded
	dropped map[string]int         // what the parse of a request body dropped
	env     stage.Env              // the rules' environment, once prepared (env.Report set)
	memo    contract.Memo          // env.Budget's counts of the job's messages
	skip    stage.Skipper          // which rules the job skips (ruleSteps)
	in      []*transcript.Message  // the messages as the rules got them
	payload []byte                 // the ready payload, once encoded (out nil)
	// out, when set, is where the ready payload is written as it is
	// encoded instead (ProcessTo), and writeErr that write's error.
	out      io.Writer
	writeErr error
}

// jobSteps is a job, step by step, in the order it meets them: the list
// Process runs over a record, and (after its first step, decode) the list
// Sanitize runs over a decoded transcript. Reading it shows the whole job,
// as reading stages.Default shows the rules. Deps.Observe's functions are
// told the durations of the rules and the render.
func (p *Processor) jobSteps() []step {
	return slices.Concat(
		[]step{
			// bounded decompression, then the job's JSON (DecodeJob)
			{StageDecode, p.decode},
			// a job that carries a provider request body (request_format,
			// request): its messages, system prompt and tools (input.go)
			{StageParse, p.parse},
			// the job's settings, options and next turn; its refusals are
			// the job's own fields, so they name the decode as they always
			// have
			{StageDecode, p.prepare},
		},
		// the rules: Deps.Stages, normally stages.Default, each wrapped
		// by instrumented
		ruleSteps(p.deps.Stages, p.deps.Observe),
		[]step{
			// render: request, the provider request body
			{StageRender, p.render},
			// the messages, the report, the ready payload
			{StageEncode, p.encode},
		},
	)
}

// decoded is the index in jobSteps of the first step after the decode:
// where Sanitize, given a decoded transcript, starts.
const decoded = 1

// runSteps runs steps over j in order and returns the job's Outcome: ready
// after the last, else what the step that stopped it said (see step).
func runSteps(ctx context.Context, j *jobState, steps []step) (out Outcome, err error) {
	at := ""
	defer func() {
		if r := recover(); r != nil {
			out, err = Recovered(at, r), nil
			if j.t != nil {
				out.Tenant, out.JobID = j.t.Tenant, j.t.JobID
			}
		}
	}()
	for _, s := range steps {
		at = s.Name
		if err := s.Run(ctx, j); err != nil {
			return stopped(ctx, j, s.Name, err)
		}
	}
	return Outcome{Ready: true, Payload: j.payload, Report: j.env.Report, Tenant: j.t.Tenant, JobID: j.t.JobID, ownPayload: true}, nil
}

// stopped is the Outcome of a job that the step named name ended with err.
// A refusal carries the rules' report when the job got that far.
func stopped(ctx context.Context, j *jobState, name string, err error) (Outcome, error) {
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return Outcome{}, ctxErr
	}
	out := Outcome{Code: deadletter.CodeInternalError, Error: err.Error(), Stage: name}
	if rej, ok := errors.AsType[*stage.Reject](err); ok {
		out.Code, out.Error, out.Report = rej.Code, rej.Msg, j.env.Report
	}
	if j.t != nil {
		out.Tenant, out.JobID = j.t.Tenant, j.t.JobID
	}
	return out, nil
}

// decode bounds the record (limits.max_compressed_bytes), decompresses it
// (limits.max_job_bytes) and decodes the job (DecodeJob).
func (p *Processor) decode(_ context.Context, j *jobState) error {
	if max := p.limits.MaxCompressedBytes; max > 0 && int64(len(j.value)) > max {
		return &stage.Reject{Code: deadletter.CodePayloadTooLarge,
			Msg: fmt.Sprintf("record value is %d bytes, over limits.max_compressed_bytes %d", len(j.value), max)}
	}
	value, err := compression.Decode(j.value, j.enc, p.limits.MaxJobBytes)
	if err != nil {
		code := deadletter.CodeDecompressionFailed
		if errors.Is(err, compression.ErrTooLarge) {
			code = deadletter.CodePayloadTooLarge
		}
		return &stage.Reject{Code: code, Msg: err.Error()}
	}
	t, err := p.DecodeJob(value)
	if err != nil {
		return &stage.Reject{Code: transcript.ErrorCode(err), Msg: err.Error()}
	}
	j.t = t
	return nil
}

// parse turns a job that carries a provider request body into one that
// carries messages (parseInput); a job of messages passes as it is.
func (p *Processor) parse(_ context.Context, j *jobState) error {
	if j.t.Input == nil {
		return nil
	}
	dropped, rej := p.parseInput(j.t)
	if rej != nil {
		return rej
	}
	j.dropped = dropped
	return nil
}

// prepare resolves the job's settings (the Resolver), checks its options
// against its target's format (wire.CheckOptions), places its next turn
// (wire.PlaceNext), and builds the rules' environment: the policy, the
// report (with what the parse dropped and the session repair), the token
// budget (stage.BudgetModel.Budget; the policy and the budget's model are
// the target's, targetOf), whether the
// model changed (turns.ModelChanged), and tools_offered false for a target
// that takes its tool history as text (wire.ToolsAsText).
func (p *Processor) prepare(_ context.Context, j *jobState) error {
	t := j.t
	target := p.targetOf(t.Target)
	pol := target.policy
	resolved, err := p.resolve(t)
	if err = errors.Join(err, wire.CheckOptions(t.Options, wire.FormatFor(pol)), wire.PlaceNext(t)); err != nil {
		return &stage.Reject{Code: deadletter.CodeInvalidJob, Msg: err.Error()}
	}
	j.env = stage.Env{
		Policy:        pol,
		Settings:      resolved,
		Report:        stage.NewReport(),
		Budget:        target.model.Budget(resolved, &j.memo),
		InputMessages: len(t.Messages),
		Fanout:        p.deps.Fanout,
	}
	env := &j.env
	reportDropped(env.Report, j.dropped)
	env.ModelChanged = turns.ModelChanged(t.CustomEntries, env.Policy)
	if wire.ToolsAsText(env.Policy, t.Options) {
		env.Settings.Request.ToolsOffered = new(false)
	}
	if t.Repair != nil {
		env.Report.SessionRepair = &stage.SessionRepairReport{DroppedLines: t.Repair.DroppedLines, KeepPointsMissing: t.Repair.KeepPointsMissing}
	}
	j.in = t.Messages
	return nil
}

// ruleSteps are the rules of chain as steps, each named by its rule and
// wrapped by instrumented (its span, its duration told to observe, a panic
// an error). A job whose context ended stops before the next rule. A rule
// whose inputs the job lacks (stage.Skipper: what its Needs declares) is
// skipped before its instruments: no span, no duration, no call.
func ruleSteps(chain []stage.Stage, observe func(string) func(time.Duration)) []step {
	steps := make([]step, len(chain))
	for i, rule := range chain {
		s := instrumented(rule, observe)
		steps[i] = step{s.Name, func(ctx context.Context, j *jobState) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if j.skip.Skip(&rule, j.t, &j.env) {
				return nil
			}
			return s.Apply(ctx, j.t, &j.env)
		}}
	}
	return steps
}

// render adds the provider request body to a job whose option render is
// request (renderRequest); a history its target cannot take as it ends is
// unsendable. Its duration goes to Deps.Observe's function of StageRender.
func (p *Processor) render(_ context.Context, j *jobState) error {
	if j.t.Options.Render != wire.RenderRequest {
		return nil
	}
	start := sinceLoad()
	if err := renderRequest(j.t, j.env.Policy); err != nil {
		return &stage.Reject{Code: deadletter.CodeUnsendable, Msg: err.Error()}
	}
	if p.observeRender != nil {
		p.observeRender(sinceLoad() - start)
	}
	return nil
}

// encode writes the ready payload: the messages first (in chunks for a
// long history), so the report states their exact size, then the report.
// A small job's payload, held whole, is written straight into its buffer
// (encodeSmall).
func (p *Processor) encode(_ context.Context, j *jobState) error {
	t, report := j.t, j.env.Report
	report.Changed = messagesChanged(j.in, t.Messages) || len(t.AppendEntries) > 0
	var par transcript.Parallel
	if fan := p.deps.Fanout; fan != nil {
		par = codecParallel(fan, fan.Chunks(len(t.Messages)))
	}
	if j.out == nil && !par.Splits() && t.InputBytes <= smallPayloadBytes {
		return encodeSmall(j)
	}
	msgs := t.EncodeMessages(par)
	report.BytesIn = t.InputBytes
	report.BytesOut = msgs.Size()
	var buf [1024]byte // a small job's report, on the stack
	b, err := report.AppendJSON(buf[:0])
	if err != nil {
		return fmt.Errorf("encoding the report: %w", err)
	}
	if j.out != nil {
		if err := t.WritePayload(j.out, msgs, b); err != nil {
			j.writeErr = fmt.Errorf("writing the payload: %w", err)
		}
		return nil
	}
	j.payload = t.AppendPayload(nil, msgs, b)
	return nil
}

// smallPayloadBytes bounds the jobs whose payload encodeSmall writes: its
// buffer is sized from the input, and a long damaged history that
// outgrew it would be copied as it grows.
const smallPayloadBytes = 1 << 20

// encodeSmall writes the ready payload of a job encoded in one part
// (transcript.AppendPayloadSized): the same bytes as EncodeMessages and
// AppendPayload, with no buffer of changed messages and no copy of them
// or of the report, into one buffer with room for the input, a quarter
// more (the edits) and the report: a written payload's buffer when the
// runner gave one back (payloadBuffer).
func encodeSmall(j *jobState) error {
	t, report := j.t, j.env.Report
	var err error
	j.payload = t.AppendPayloadSized(payloadBuffer(t.InputBytes+t.InputBytes/4+1024), func(dst []byte, listSize int) []byte {
		report.BytesIn, report.BytesOut = t.InputBytes, listSize
		dst, err = report.AppendJSON(dst)
		return dst
	})
	if err != nil {
		return fmt.Errorf("encoding the report: %w", err)
	}
	return nil
}

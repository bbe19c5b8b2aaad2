package pipeline

import (
	"fmt"
	"sort"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// StageParse names the parse of a request job's body (request_format and
// request) into messages, before the stages; the report counts what it
// dropped under this name (the wire.Loss kinds).
const StageParse = "parse_request"

// parseInput turns a job that carries a provider request body into one
// that carries messages, at the one place every entry point passes (the
// parse step of jobSteps, which Process and Sanitize both run):
// the body is parsed for the target's format (wire.Parse) with the job's
// `source` (default: the input format's own provider and API) on each
// assistant turn, its system prompt and tools become the job's `system` and
// `tools` unless the job's options set them, `render` defaults to
// request, and a body that ends with a prefill (prefix: true) continues it
// (option continue). It returns what the parse dropped, or the refusal of a body that
// cannot be parsed (invalid_job) or has too many messages.
func (p *Processor) parseInput(t *transcript.Transcript) (map[string]int, *stage.Reject) {
	in := t.Input
	f, ok := wire.ParseFormat(in.Format)
	if !ok {
		return nil, &stage.Reject{Code: deadletter.CodeInvalidJob, Msg: fmt.Sprintf("request_format: %q is not one of %v", in.Format, wire.Formats)}
	}
	in.Format = string(f)
	src, err := wire.SourceOf(f, t.Options.Source)
	if err != nil {
		return nil, &stage.Reject{Code: deadletter.CodeInvalidJob, Msg: err.Error()}
	}
	parsed, err := wire.Parse(f, in.Body, src, wire.FormatFor(policy.Resolve(t.Target)))
	if err != nil {
		return nil, &stage.Reject{Code: deadletter.CodeInvalidJob, Msg: err.Error()}
	}
	msgs, err := transcript.FromMessages(parsed.Messages, t.Target)
	if err != nil {
		return nil, &stage.Reject{Code: transcript.ErrorCode(err), Msg: "request: " + err.Error()}
	}
	if max := p.limits.MaxMessages; max > 0 && len(msgs.Messages) > max {
		return nil, &stage.Reject{Code: deadletter.CodePayloadTooLarge, Msg: fmt.Sprintf("request: %d messages, over the limit of %d", len(msgs.Messages), max)}
	}
	t.Messages = msgs.Messages
	if t.Options.System == nil {
		t.Options.System = parsed.System
	}
	if t.Options.Tools == nil {
		t.Options.Tools = parsed.Tools
	}
	if t.Options.Render == "" {
		t.Options.Render = wire.RenderRequest
	}
	if parsed.Continue {
		t.Options.Continue = true // the body's own prefill (prefix: true)
	}
	return parsed.Dropped, nil
}

// reportDropped counts what the parse dropped, in a fixed order.
func reportDropped(r *stage.Report, dropped map[string]int) {
	kinds := make([]string, 0, len(dropped))
	for k := range dropped {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		r.Add(StageParse, "dropped_"+k, dropped[k])
	}
}

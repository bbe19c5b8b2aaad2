package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/tokens"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// sonnet45 is a 200,000-token model: Claude Sonnet 4.5 without the 1M beta.
var sonnet45 = transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-sonnet-4-5"}

// millionTokenJob is a realistic history of over 1M tokens (Claude's bound)
// for target, with the options given (a JSON object).
func millionTokenJob(t *testing.T, options string) ([]byte, []byte) {
	t.Helper()
	history := sessiongen.RealShapes(sessiongen.RealConfig{Seed: 30, Target: sonnet45, Turns: 2800, StandIns: true, ExtraRoles: true}).History()
	target, _ := json.Marshal(sonnet45)
	return []byte(`{"job_id":"j30","tenant":"acme","session_id":"s30","target":` + string(target) +
		`,"options":` + options + `,"messages":` + string(history) + `}`), history
}

// TestProcessFitsAMillionTokensInto200k is issue 30's integration test: a
// history of over a million tokens, sent to a 200,000-token Claude model
// through the whole pipeline (decode, settings, the default chain, the
// contract, the encode), comes back ready; its payload's messages fit the
// window with the model's default output reserved, by the target's own
// count; the report says what was dropped; the latest user turn is there.
// With context_fit refuse the same job is the dead letter context_overflow.
func TestProcessFitsAMillionTokensInto200k(t *testing.T) {
	if testing.Short() {
		t.Skip("counts a million tokens several times")
	}
	job, history := millionTokenJob(t, `{"now_ms":1776000999000}`)
	in, err := transcript.FromMessages(history, sonnet45)
	if err != nil {
		t.Fatal(err)
	}
	counter := tokens.For(sonnet45.Provider, sonnet45.API, sonnet45.Model)
	before := 0
	for _, m := range in.Messages {
		before += counter.Message(m)
	}
	if before < 1_000_000 {
		t.Fatalf("the history is %d tokens, not a million", before)
	}
	limits := contract.Model(sonnet45.Provider, sonnet45.API, sonnet45.Model)
	if limits.ContextWindow != 200_000 {
		t.Fatalf("claude-sonnet-4-5's window is %d", limits.ContextWindow)
	}
	out := process(t, job, nil, stages.Default(nil)...)
	if !out.Ready {
		t.Fatalf("dead letter %s: %s", out.Code, out.Error)
	}
	var payload struct {
		Messages json.RawMessage `json:"messages"`
		Report   stage.Report    `json:"report"`
	}
	if err := json.Unmarshal(out.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	fit := payload.Report.ContextFit
	if fit == nil || !fit.Fits || fit.Window != 200_000 || fit.Reserve != limits.DefaultOutput || fit.TokensBefore < 1_000_000 ||
		fit.TurnsDropped == 0 || fit.Tokenizer != counter.Name() {
		t.Fatalf("report.context_fit %+v", fit)
	}
	got, err := transcript.FromMessages(payload.Messages, sonnet45)
	if err != nil {
		t.Fatal(err)
	}
	after := counter.Request(nil, nil)
	for _, m := range got.Messages {
		after += counter.Message(m)
	}
	if after != fit.TokensAfter || after+fit.Reserve > fit.Window {
		t.Fatalf("the payload is %d tokens + %d reserved > %d (report says %d)", after, fit.Reserve, fit.Window, fit.TokensAfter)
	}
	last := in.Messages[len(in.Messages)-1]
	if !strings.HasSuffix(string(payload.Messages), string(last.Raw())+"]") {
		t.Errorf("the history's last message is not the payload's")
	}
	t.Logf("%d messages, %d tokens (%s) -> %d messages, %d tokens: %d results trimmed, %d cleared, %d turns (%d messages) dropped",
		len(in.Messages), fit.TokensBefore, fit.Tokenizer, len(got.Messages), after, fit.SoftTrimmed, fit.HardCleared, fit.TurnsDropped, fit.MessagesDropped)

	job, _ = millionTokenJob(t, `{"context_fit":"refuse","max_output_tokens":64000}`)
	out = process(t, job, nil, stages.Default(nil)...)
	if out.Ready || out.Code != "context_overflow" || out.Stage != "context_fit" ||
		!strings.Contains(out.Error, "+ 64000 reserved for output") || !strings.Contains(out.Error, "> the 200000-token context window") {
		t.Fatalf("refuse: %+v", out)
	}
}

// TestProcessContextFitReport: with context_fit report a job over the
// window is written as it is, report.context_fit says it does not fit, and
// the contract lists the overflow (its only violation) in report.contract
// instead of refusing it; with the default mode the same job is fitted.
func TestProcessContextFitReport(t *testing.T) {
	history := sessiongen.RealShapes(sessiongen.RealConfig{Seed: 31, Target: sonnet45, Turns: 12}).History()
	target, _ := json.Marshal(sonnet45)
	job := func(options string) []byte {
		return []byte(`{"job_id":"j31","tenant":"acme","session_id":"s31","target":` + string(target) +
			`,"options":` + options + `,"messages":` + string(history) + `}`)
	}
	out := process(t, job(`{"context_window_tokens":3000,"max_output_tokens":500,"context_fit":"report"}`), nil, stages.Default(nil)...)
	if !out.Ready {
		t.Fatalf("report mode: dead letter %s: %s", out.Code, out.Error)
	}
	fit, c := out.Report.ContextFit, out.Report.Contract
	if fit == nil || fit.Fits || fit.Mode != "report" || fit.TokensAfter != fit.TokensBefore || fit.TokensBefore <= 2500 {
		t.Fatalf("report.context_fit %+v", fit)
	}
	if c == nil || c.ByRule[contract.RuleContextWindow] != 1 || len(c.ByRule) != 1 || !strings.Contains(c.Violations[0], "> the 3000-token context window") {
		t.Fatalf("report.contract %+v", c)
	}
	if !strings.Contains(string(out.Payload), `"context_fit":{"mode":"report"`) {
		t.Errorf("the payload has no report.context_fit: %.300s", out.Payload)
	}
	out = process(t, job(`{"context_window_tokens":3000,"max_output_tokens":500}`), nil, stages.Default(nil)...)
	if !out.Ready || out.Report.ContextFit == nil || !out.Report.ContextFit.Fits || out.Report.Contract != nil {
		t.Fatalf("trim mode: %s %s %+v", out.Code, out.Error, out.Report)
	}
}

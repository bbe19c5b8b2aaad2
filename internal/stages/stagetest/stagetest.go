// Package stagetest runs hygiene stages over JSON fixtures in tests: build a
// transcript from a message array, apply stages, compare the output, and
// fuzz a stage for the properties every rule must have (no panic, output
// re-parses, a second run changes nothing, two runs give the same bytes, a
// run that says it edited nothing did not).
//
// May import: internal/contract, internal/policy, internal/stages/stage,
// internal/transcript.
package stagetest

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Case is one run of stages over a message array.
type Case struct {
	Target   transcript.Target // resolved with policy.Resolve
	Settings stage.Settings    // zero value is fine for most rules; rules read no job option but through it
	// CustomEntries seeds the session state (model snapshots).
	CustomEntries []transcript.CustomEntry
	ModelChanged  bool
	// Budget is the job's token budget (zero: none, no window is fitted).
	Budget contract.Budget
}

// Anthropic is the default target of the spec's vectors.
var Anthropic = transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}

// Result is what a run produced.
type Result struct {
	Transcript *transcript.Transcript
	Report     *stage.Report
	Env        *stage.Env
	JSON       []byte // the output message array
}

// Apply runs the stages in order over messagesJSON and returns the result.
func (c Case) Apply(tb testing.TB, messagesJSON string, stages ...stage.Stage) Result {
	tb.Helper()
	res, err := c.Run([]byte(messagesJSON), stages...)
	if err != nil {
		tb.Fatalf("apply: %v", err)
	}
	return res
}

// Run runs the stages in order over messagesJSON (stage.Run: a stage whose
// Needs the messages lack is skipped) and returns the result,
// or the first error a stage returned (a *stage.Reject for a refusal).
func (c Case) Run(messagesJSON []byte, stages ...stage.Stage) (Result, error) {
	t, err := transcript.FromMessages(messagesJSON, transcript.Target(c.Target))
	if err != nil {
		return Result{}, err
	}
	t.CustomEntries = c.CustomEntries
	env := &stage.Env{Policy: policy.Resolve(c.Target), Settings: c.Settings, Report: stage.NewReport(), ModelChanged: c.ModelChanged, Budget: c.Budget}
	if err := stage.Run(context.Background(), stages, t, env); err != nil {
		return Result{}, err
	}
	return Result{Transcript: t, Report: env.Report, Env: env, JSON: t.MessagesJSON()}, nil
}

// Compact returns the compact form of a JSON text, for comparisons that
// should not depend on the fixture's spacing. It fails the test on bad JSON.
func Compact(tb testing.TB, s string) string {
	tb.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		tb.Fatalf("fixture is not JSON: %v\n%s", err, s)
	}
	return buf.String()
}

// Equal fails the test unless got and want are the same JSON text once both
// are compacted (member order matters; spacing does not).
func Equal(tb testing.TB, got []byte, want string) {
	tb.Helper()
	if g, w := Compact(tb, string(got)), Compact(tb, want); g != w {
		tb.Errorf("output differs\n got: %s\nwant: %s", g, w)
	}
}

// CheckProperties runs the stages twice over messagesJSON and reports a
// violation of the properties every stage must have, among them that a
// run that said it edited nothing (stage.Env.NoEdit) left the messages as
// they were. Invalid JSON input is not a violation (the codec rejects it
// before any stage runs). Nor is input holding invalid text (invalid UTF-8
// or a lone surrogate) for stages none of which repairs it: the chain's
// first rule, text repair (the one that Needs transcript.FactInvalidText,
// TestDefaultRepairsTextFirst), hands every later rule valid text, and a
// rule may spell the text it writes back otherwise than the bytes it read.
func (c Case) CheckProperties(tb testing.TB, messagesJSON []byte, stages ...stage.Stage) {
	tb.Helper()
	if unrepairedText(messagesJSON, stages) {
		return
	}
	first, err := c.Run(messagesJSON, stages...)
	if err != nil {
		if transcript.ErrorCode(err) != "" {
			return
		}
		tb.Fatalf("stage error on valid input: %v", err)
	}
	if !json.Valid(first.JSON) {
		tb.Fatalf("output is not valid JSON: %s", first.JSON)
	}
	again, err := c.Run(messagesJSON, stages...)
	if err != nil {
		tb.Fatalf("second run failed: %v", err)
	}
	if !bytes.Equal(first.JSON, again.JSON) {
		tb.Fatalf("two runs over the same input differ:\n%s\n%s", first.JSON, again.JSON)
	}
	second, err := c.Run(first.JSON, stages...)
	if err != nil {
		tb.Fatalf("run over own output failed: %v", err)
	}
	if !bytes.Equal(first.JSON, second.JSON) {
		tb.Fatalf("not idempotent:\n first: %s\nsecond: %s", first.JSON, second.JSON)
	}
	c.checkNoEdit(tb, messagesJSON, stages)
}

// unrepairedText reports whether messagesJSON holds invalid text that none
// of the stages repairs (see CheckProperties).
func unrepairedText(messagesJSON []byte, stages []stage.Stage) bool {
	for _, s := range stages {
		if s.Needs&transcript.FactInvalidText != 0 {
			return false
		}
	}
	t, err := transcript.FromMessages(messagesJSON, transcript.Target{})
	return err == nil && t.Facts()&transcript.FactInvalidText != 0
}

// checkNoEdit fails the test when the stages said they edited nothing
// while they did (see Watch): the messages must then be the ones decoded.
func (c Case) checkNoEdit(tb testing.TB, messagesJSON []byte, stages []stage.Stage) {
	tb.Helper()
	var w Watch
	res, err := c.Run(messagesJSON, append(append([]stage.Stage{w.Prove()}, stages...), w.Look())...)
	if err != nil {
		tb.Fatalf("run between a proof and its check failed: %v", err)
	}
	if w.Stands && !bytes.Equal(res.JSON, w.Before) {
		tb.Fatalf("the stages said they edited nothing (stage.Env.NoEdit), but the messages changed:\n  in: %s\n out: %s", w.Before, res.JSON)
	}
}

// A Watch tells whether the stages run between its two stages said they
// edited nothing: Prove, put before them, records the messages (Before)
// and a proof of them (stage.Env.Prove); Look, put after them, sets Stands
// to whether that proof still stands (stage.Env.Unedited: each stage was
// skipped, ReadOnly, or called stage.Env.NoEdit). Both are ReadOnly. When
// Stands, the messages must still be Before.
type Watch struct {
	Before []byte
	Stands bool
	proof  stage.Proof
}

// Prove returns the stage that records the messages and proves them.
func (w *Watch) Prove() stage.Stage {
	return stage.Stage{Name: "prove", ReadOnly: true, Apply: func(_ context.Context, t *transcript.Transcript, env *stage.Env) error {
		w.proof, w.Before = env.Prove(0), t.MessagesJSON()
		return nil
	}}
}

// Look returns the stage that asks whether the proof still stands.
func (w *Watch) Look() stage.Stage {
	return stage.Stage{Name: "look", ReadOnly: true, Apply: func(_ context.Context, _ *transcript.Transcript, env *stage.Env) error {
		_, w.Stands = env.Unedited(w.proof)
		return nil
	}}
}

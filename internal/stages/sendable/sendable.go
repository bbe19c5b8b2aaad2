// Package sendable holds the last stages of the chain, which decide whether
// the sanitized transcript can be sent to its target at all: EmptyHistory
// (nothing left to send is a dead letter empty_history) and Contract (the
// transcript is checked against the target's documented contract, package
// contract; a violation is a dead letter unsendable, or a report entry).
// They repair nothing: by the time they run every rule has.
//
// May import: internal/contract, internal/deadletter, internal/settings,
// internal/stages/stage, internal/transcript.
package sendable

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// EmptyHistory returns the stage "empty_history": a transcript with no
// message left, or with no user turn left (user, or a summary or custom
// message, which the runner sends as user), is rejected with the dead-letter
// code empty_history. No provider accepts such a request ("at least one
// message is required"), and sending it anyway puts the provider in
// cooldown (openclaw/openclaw#76829). The sentence says how many input
// messages there were and what the rules removed (the report's counts), so
// the user can see why nothing is left.
//
// A history that still has turns to send but no user turn (a Gemini body
// of systemInstruction and model turns) never gets here on any target:
// turns.ProviderTurns puts the "(session bootstrap)" user turn in front of
// it. What remains for this stage is a history with nothing a provider is
// sent (no message, or only entries of roles no body carries).
func EmptyHistory() stage.Stage {
	return stage.Stage{Name: "empty_history", ReadOnly: true, Apply: func(_ context.Context, t *transcript.Transcript, env *stage.Env) error {
		users := 0
		for _, m := range t.Messages {
			if contract.UserSide(m.Role()) {
				users++
			}
		}
		if users > 0 {
			return nil
		}
		return &stage.Reject{Code: deadletter.CodeEmptyHistory, Msg: emptySentence(len(t.Messages), env)}
	}}
}

// emptySentence says what is left and what the repair removed.
func emptySentence(left int, env *stage.Env) string {
	in := env.InputMessages
	var what string
	switch {
	case in == 0:
		return "messages: the job has no messages, so there is nothing to send"
	case left == 0:
		what = fmt.Sprintf("messages: nothing left to send: the repair removed all %d input messages", in)
	default:
		what = fmt.Sprintf("messages: nothing left to send: no user turn is left of %d input messages (%d remain, none from the user)", in, left)
	}
	if changes := changesOf(env.Report); changes != "" {
		return what + "; the rules changed: " + changes
	}
	return what + "; no rule removed anything, so the input had no user turn"
}

// changesOf lists the report's counts as "stage what n", sorted.
func changesOf(r *stage.Report) string {
	var parts []string
	for _, c := range r.Stages.List() {
		parts = append(parts, fmt.Sprintf("%s %s %d", c.Stage, c.What, c.N))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// Contract returns the stage "contract", the last of the chain: it checks
// the sanitized transcript against the target's contract (env.Policy.
// Contract) in one walk, taking the request's size from the request_size
// rule when no rule edited the history since (env.RequestSize). A violation means a rule is missing or wrong:
// every violation goes into the report (report.contract: the family, the
// first contract.MaxListed violations, the count by rule), and in the
// default mode, reject, the job becomes a dead letter unsendable whose
// sentence names the first violation with its path and the count by rule.
// In report mode the payload is written as it is.
//
// Its last rule is the context window (contract.CheckWindow, issue 30):
// the request's tokens with the output it reserves (env.Budget), counted
// only when the cheap bound does not prove the fit, and not at all when
// the context_fit stage counted it and no rule edited it since
// (env.WindowFit, stage.Env.Unedited). The context_fit stage
// has fitted every job but a context_fit report one, so this rule holds
// whatever the mode: a request over the window is unsendable, except
// that with context_fit report an overflow that is the only violation is
// listed in report.contract and written, as contract.mode report writes
// every violation.
func Contract() stage.Stage {
	return stage.Stage{Name: "contract", ReadOnly: true, Apply: func(_ context.Context, t *transcript.Transcript, env *stage.Env) error {
		c := env.Policy.Contract
		size, ok := env.Unedited(env.RequestSize)
		if !ok {
			size = -1
		}
		res := contract.CheckSized(t.Messages, c, env.Settings.Request.ContextWindow(), size)
		if tokens, ok := env.Unedited(env.WindowFit); ok {
			contract.CheckTokens(&res, env.Budget, tokens)
		} else {
			system, tools := contract.FixedParts(t.Options)
			contract.CheckWindow(&res, env.Budget, t.Messages, system, tools)
		}
		if res.OK() {
			return nil
		}
		env.Report.Contract = Report(c.Family, res)
		if env.Settings.ContractMode == settings.ContractReport {
			return nil
		}
		if env.Settings.Context.Fit == settings.FitReport && res.Total == res.Counts[contract.RuleContextWindow] {
			return nil
		}
		return &stage.Reject{Code: deadletter.CodeUnsendable, Msg: res.Summary()}
	}}
}

// Report turns a check's result into the report's contract entry.
func Report(f contract.Family, res contract.Result) *stage.ContractReport {
	listed := make([]string, len(res.Violations))
	for i, v := range res.Violations {
		listed[i] = v.String()
	}
	return &stage.ContractReport{Family: string(f), Violations: listed, ByRule: res.Counts}
}

package stage

import (
	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/tokens"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// BudgetFor is the token budget of a job to target tg with settings s
// (issue 30): ModelOf(tg).Budget(s, memo).
func BudgetFor(tg transcript.Target, s Settings, memo *contract.Memo) contract.Budget {
	return ModelOf(tg).Budget(s, memo)
}

// BudgetModel is what a token budget reads of its target alone: the
// target's counter (tokens.For) and model limits (contract.Model). It is
// the same for every job to the target, so a processor may keep it for the
// jobs that follow.
type BudgetModel struct {
	Limits  contract.ModelLimits
	Counter *tokens.Counter
}

// ModelOf is target tg's BudgetModel.
func ModelOf(tg transcript.Target) BudgetModel {
	return BudgetModel{
		Limits:  contract.Model(tg.Provider, tg.API, tg.Model),
		Counter: tokens.For(tg.Provider, tg.API, tg.Model),
	}
}

// Budget is the token budget of a job to the model with settings s: the
// window is the job's context_window_tokens, else the context section's
// window_tokens, else the model's (with its input limit, which a window
// the job or the configuration names replaces); the reserve is
// context.max_output_tokens, else the model's default output. It
// remembers the counts of the job's messages by their bytes in memo
// (contract.Budget.WithMemo; nil: a memo of its own): one Budget, and one
// memo, per job.
func (m BudgetModel) Budget(s Settings, memo *contract.Memo) contract.Budget {
	lim := m.Limits
	b := contract.Budget{
		Counter: m.Counter,
		Window:  lim.ContextWindow, MaxInput: lim.MaxInput, Reserve: lim.DefaultOutput,
	}
	switch {
	case s.Request.ContextWindow() > 0:
		b.Window, b.MaxInput = s.Request.ContextWindow(), 0
	case s.Context.WindowTokens > 0:
		b.Window, b.MaxInput = s.Context.WindowTokens, 0
	}
	if s.Context.MaxOutputTokens > 0 {
		b.Reserve = s.Context.MaxOutputTokens
	}
	return b.WithMemo(memo)
}

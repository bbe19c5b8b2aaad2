package stage

import (
	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/tokens"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// BudgetFor is the token budget of a job to target tg with settings s
// (issue 30): the target's counter (tokens.For) and model limits
// (contract.Model); the window is the job's context_window_tokens, else
// the context section's window_tokens, else the model's (with its input
// limit, which a window the job or the configuration names replaces); the
// reserve is context.max_output_tokens, else the model's default output.
// It remembers the counts of the job's messages by their bytes in memo
// (contract.Budget.WithMemo; nil: a memo of its own): one Budget, and one
// memo, per job.
func BudgetFor(tg transcript.Target, s Settings, memo *contract.Memo) contract.Budget {
	lim := contract.Model(tg.Provider, tg.API, tg.Model)
	b := contract.Budget{
		Counter: tokens.For(tg.Provider, tg.API, tg.Model),
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

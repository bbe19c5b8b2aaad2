package settings

// The values of Context.Fit: what the context_fit stage does with a
// history whose token count plus the reserved output is over the target
// model's context window.
const (
	// FitTrim trims old tool results, then drops the oldest turns at safe
	// boundaries with one placeholder, until the history fits (the default).
	FitTrim = "trim"
	// FitRefuse makes such a job the dead letter context_overflow.
	FitRefuse = "refuse"
	// FitReport writes the payload as it is and puts the figures in
	// report.context_fit (as contract.mode report lists a violation).
	FitReport = "report"
)

// Context is the context-window fit (issue 30): the configuration's
// context: section, a tenant's overrides, or a job's options.context (and
// the aliases context_fit and max_output_tokens at the top of options,
// ContextAliases). The window itself comes from the job's
// context_window_tokens, else WindowTokens here, else the model table
// (contract.Model); the output reserve from MaxOutputTokens, else the
// model's default output.
type Context struct {
	// Fit is FitTrim, FitRefuse or FitReport.
	Fit string `yaml:"fit" json:"fit"`
	// WindowTokens is the context window in tokens when the job sends no
	// context_window_tokens; 0 takes the target model's from the table.
	WindowTokens int `yaml:"window_tokens" json:"window_tokens"`
	// MaxOutputTokens is the output the request reserves room for; 0
	// takes the target model's default output from the table.
	MaxOutputTokens int `yaml:"max_output_tokens" json:"max_output_tokens"`
}

// ContextAliases are the names issue 30 gives the context options at the
// top of a job's options, each mapped to its key in options.context.
var ContextAliases = map[string]string{
	"context_fit":       "fit",
	"max_output_tokens": "max_output_tokens",
}

func (c Context) check(ch *checks) {
	if c.Fit != FitTrim && c.Fit != FitRefuse && c.Fit != FitReport {
		ch.add("fit", "must be one of %q, %q, %q, got %q", FitTrim, FitRefuse, FitReport, c.Fit)
	}
	ch.atLeast("window_tokens", int64(c.WindowTokens), 0)
	ch.atLeast("max_output_tokens", int64(c.MaxOutputTokens), 0)
}

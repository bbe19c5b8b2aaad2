package policy

import (
	"fmt"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// ParseTarget reads the command-line form "PROVIDER/API/MODEL".
//
// The string is split at its first two slashes, so the model may itself contain
// slashes ("openrouter/openai-completions/google/gemini-2.5-pro") and the API may
// be empty ("anthropic//claude-opus-4-6"). Each part is trimmed of surrounding
// white space. The model must not be empty, and the target must pass Validate.
// Every error names the part that is missing.
func ParseTarget(s string) (transcript.Target, error) {
	parts := strings.SplitN(strings.TrimSpace(s), "/", 3)
	switch len(parts) {
	case 1:
		return transcript.Target{}, fmt.Errorf("target %q: the API and MODEL parts are missing; want PROVIDER/API/MODEL", s)
	case 2:
		return transcript.Target{}, fmt.Errorf("target %q: the MODEL part is missing; want PROVIDER/API/MODEL", s)
	}
	t := transcript.Target{
		Provider: strings.TrimSpace(parts[0]),
		API:      strings.TrimSpace(parts[1]),
		Model:    strings.TrimSpace(parts[2]),
	}
	if t.Model == "" {
		return transcript.Target{}, fmt.Errorf("target %q: the model is empty; want PROVIDER/API/MODEL", s)
	}
	if t.Validate() != nil {
		return transcript.Target{}, fmt.Errorf("target %q: the provider and the API are both empty; give at least one", s)
	}
	return t, nil
}

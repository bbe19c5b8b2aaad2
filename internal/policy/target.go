package policy

import (
	"errors"
	"fmt"
	"strings"
)

// Target names the provider request a job is sanitised for, exactly as the job gives it.
// Resolve normalises it; Target itself keeps the caller's spelling.
type Target struct {
	Provider string `json:"provider"` // provider id, e.g. "anthropic", "amazon-bedrock", "vllm"
	API      string `json:"api"`      // modelApi, e.g. "anthropic-messages", "openai-completions"
	Model    string `json:"model"`    // modelId, e.g. "claude-opus-4-6"; may contain '/'
}

// ParseTarget reads the command-line form "PROVIDER/API/MODEL".
//
// The string is split at its first two slashes, so the model may itself contain
// slashes ("openrouter/openai-completions/google/gemini-2.5-pro") and the API may
// be empty ("anthropic//claude-opus-4-6"). Each part is trimmed of surrounding
// white space. The model must not be empty, and the target must pass Validate.
// Every error names the part that is missing.
func ParseTarget(s string) (Target, error) {
	parts := strings.SplitN(strings.TrimSpace(s), "/", 3)
	switch len(parts) {
	case 1:
		return Target{}, fmt.Errorf("target %q: the API and MODEL parts are missing; want PROVIDER/API/MODEL", s)
	case 2:
		return Target{}, fmt.Errorf("target %q: the MODEL part is missing; want PROVIDER/API/MODEL", s)
	}
	t := Target{
		Provider: strings.TrimSpace(parts[0]),
		API:      strings.TrimSpace(parts[1]),
		Model:    strings.TrimSpace(parts[2]),
	}
	if t.Model == "" {
		return Target{}, fmt.Errorf("target %q: the model is empty; want PROVIDER/API/MODEL", s)
	}
	if t.Validate() != nil {
		return Target{}, fmt.Errorf("target %q: the provider and the API are both empty; give at least one", s)
	}
	return t, nil
}

// errNoProviderNoAPI is the one way a target from a job is invalid.
var errNoProviderNoAPI = errors.New("target: provider and api are both empty")

// Validate reports whether the target can select a policy at all. A target needs
// a provider or an API (or both); the model is optional. White space alone counts
// as empty. An unknown provider or API is valid: it gets the default policy.
func (t Target) Validate() error {
	if strings.TrimSpace(t.Provider) == "" && strings.TrimSpace(t.API) == "" {
		return errNoProviderNoAPI
	}
	return nil
}

// String returns the target in the "PROVIDER/API/MODEL" form that ParseTarget reads.
func (t Target) String() string {
	return t.Provider + "/" + t.API + "/" + t.Model
}

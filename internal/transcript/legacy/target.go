package legacy

import (
	"errors"
	"strings"
)

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

// String returns the target in the "PROVIDER/API/MODEL" form that
// policy.ParseTarget reads.
func (t Target) String() string {
	return t.Provider + "/" + t.API + "/" + t.Model
}

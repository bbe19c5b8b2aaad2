package policy

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in      string
		want    transcript.Target
		wantErr string // substring of the error; "" = no error
	}{
		{in: "anthropic/anthropic-messages/claude-opus-4-6", want: transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}},
		{in: "anthropic//claude-x", want: transcript.Target{Provider: "anthropic", API: "", Model: "claude-x"}},
		{in: "openrouter/openai-completions/google/gemini-2.5-pro", want: transcript.Target{Provider: "openrouter", API: "openai-completions", Model: "google/gemini-2.5-pro"}},
		{in: "/openai-responses/gpt-5", want: transcript.Target{Provider: "", API: "openai-responses", Model: "gpt-5"}},
		{in: "  Bedrock / bedrock-converse-stream / anthropic.claude-3-haiku  ", want: transcript.Target{Provider: "Bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-haiku"}},
		{in: "vllm/openai-completions/m/", want: transcript.Target{Provider: "vllm", API: "openai-completions", Model: "m/"}},
		{in: "", wantErr: "the API and MODEL parts are missing"},
		{in: "anthropic", wantErr: "the API and MODEL parts are missing"},
		{in: "anthropic/anthropic-messages", wantErr: "the MODEL part is missing"},
		{in: "anthropic/anthropic-messages/", wantErr: "the model is empty"},
		{in: "anthropic/anthropic-messages/   ", wantErr: "the model is empty"},
		{in: "//claude-x", wantErr: "the provider and the API are both empty"},
		{in: " / /claude-x", wantErr: "the provider and the API are both empty"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTarget(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseTarget(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), "target "+strconv.Quote(tt.in)) {
					t.Errorf("error %q does not quote the input", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTarget(%q) error = %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseTarget(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		target transcript.Target
		ok     bool
	}{
		{transcript.Target{Provider: "anthropic", API: "", Model: ""}, true},
		{transcript.Target{Provider: "", API: "openai-completions", Model: ""}, true},
		{transcript.Target{Provider: "unknown-provider", API: "unknown-api", Model: "m"}, true},
		{transcript.Target{Provider: "", API: "", Model: "claude-opus-4-6"}, false},
		{transcript.Target{Provider: " ", API: "\t", Model: ""}, false},
	}
	for _, tt := range tests {
		err := tt.target.Validate()
		if tt.ok && err != nil {
			t.Errorf("%#v.Validate() = %v, want nil", tt.target, err)
		}
		if !tt.ok && (err == nil || err.Error() != "target: provider and api are both empty") {
			t.Errorf("%#v.Validate() = %v, want the both-empty error", tt.target, err)
		}
	}
}

// FuzzParseTarget checks that ParseTarget never panics and that every target it
// accepts is valid, has no slash in provider or API, and survives a round trip
// through String.
func FuzzParseTarget(f *testing.F) {
	for _, seed := range []string{
		"anthropic/anthropic-messages/claude-opus-4-6",
		"anthropic//claude-x",
		"openrouter/openai-completions/google/gemini-2.5-pro",
		"//m", "a/b", "", "/", "///", " x / y / z ",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTarget(s)
		if err != nil {
			if got != (transcript.Target{}) {
				t.Fatalf("ParseTarget(%q) returned %#v with error %v", s, got, err)
			}
			return
		}
		if got.Validate() != nil || got.Model == "" {
			t.Fatalf("ParseTarget(%q) accepted an invalid target %#v", s, got)
		}
		if strings.Contains(got.Provider, "/") || strings.Contains(got.API, "/") {
			t.Fatalf("ParseTarget(%q) = %#v: a slash in provider or API", s, got)
		}
		again, err := ParseTarget(got.String())
		if err != nil || again != got {
			t.Fatalf("round trip of %#v: got %#v, %v", got, again, err)
		}
	})
}

package contract

import (
	"strings"
	"testing"
)

// TestIDLimitsFacts pins each provider's documented limits (see idlimits.go for sources).
func TestIDLimitsFacts(t *testing.T) {
	tests := []struct {
		name string
		got  IDLimits
		want IDLimits
	}{
		{"anthropic", anthropicLimits, IDLimits{Pattern: `^[a-zA-Z0-9_-]+$`}},
		{"bedrock", bedrockLimits, IDLimits{MaxLen: 64, Pattern: `^[a-zA-Z0-9_-]+$`}},
		{"chat completions", chatCompletionsLimits, IDLimits{MaxLen: 40}},
		{"responses", responsesLimits, IDLimits{MaxLen: 64}},
		{"mistral", mistralLimits, IDLimits{ExactLen: 9, Pattern: `^[a-zA-Z0-9]{9}$`}},
		{"google", googleLimits, IDLimits{Pattern: `^[a-zA-Z0-9]+$`}},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s limits = %+v, want %+v", tt.name, tt.got, tt.want)
		}
		if _, ok := knownPatterns[tt.got.Pattern]; tt.got.Pattern != "" && !ok {
			t.Errorf("%s pattern %q is not precompiled", tt.name, tt.got.Pattern)
		}
	}
}

func TestIDLimitsValid(t *testing.T) {
	tests := []struct {
		name   string
		limits IDLimits
		id     string
		want   bool
	}{
		{"none: any non-empty id", IDLimits{}, "call_abc|fc_123 with spaces", true},
		{"none: empty id", IDLimits{}, "", false},
		{"anthropic: native id", anthropicLimits, "toolu_01AbC", true},
		{"anthropic: dash", anthropicLimits, "call-1", true},
		{"anthropic: long id", anthropicLimits, strings.Repeat("a", 500), true},
		{"anthropic: pipe", anthropicLimits, "call_1|fc_2", false},
		{"anthropic: colon", anthropicLimits, "edit:22", false},
		{"bedrock: 64", bedrockLimits, strings.Repeat("a", 64), true},
		{"bedrock: 65", bedrockLimits, strings.Repeat("a", 65), false},
		{"bedrock: dot", bedrockLimits, "tooluse.1", false},
		{"chat completions: 40", chatCompletionsLimits, strings.Repeat("x", 40), true},
		{"chat completions: 41", chatCompletionsLimits, strings.Repeat("x", 41), false},
		{"chat completions: any chars", chatCompletionsLimits, "call_1|fc_2", true},
		{"chat completions: bytes not runes", chatCompletionsLimits, strings.Repeat("é", 21), false},
		{"responses: 64", responsesLimits, strings.Repeat("c", 64), true},
		{"responses: 65", responsesLimits, strings.Repeat("c", 65), false},
		{"mistral: 9 alnum", mistralLimits, "callitem1", true},
		{"mistral: 8", mistralLimits, "callitem", false},
		{"mistral: 10", mistralLimits, "callitem12", false},
		{"mistral: underscore", mistralLimits, "call_ite1", false},
		{"google: alnum", googleLimits, "callitem123", true},
		{"google: underscore", googleLimits, "call_1", false},
		{"pattern that does not compile accepts nothing", IDLimits{Pattern: "^[a-"}, "a", false},
		{"other pattern", IDLimits{Pattern: `^x+$`}, "xxx", true},
	}
	for _, tt := range tests {
		if got := tt.limits.Valid(tt.id); got != tt.want {
			t.Errorf("%s: %+v.Valid(%q) = %v, want %v", tt.name, tt.limits, tt.id, got, tt.want)
		}
	}
}

func BenchmarkIDLimitsValid(b *testing.B) {
	ids := []string{"toolu_01AbCdEfGhIjKlMnOpQrStUv", "call_1|fc_2", "callitem1"}
	limits := []IDLimits{anthropicLimits, chatCompletionsLimits, mistralLimits}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = limits[i%len(limits)].Valid(ids[i%len(ids)])
	}
}

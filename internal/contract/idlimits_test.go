package contract

import (
	"regexp"
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
		{"responses", responsesLimits, IDLimits{MaxLen: 64, ItemHalf: true}},
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

// TestClassSeqAgreesWithRegexp: the fast matcher of each documented pattern
// (and a few others) accepts exactly what the regexp accepts.
func TestClassSeqAgreesWithRegexp(t *testing.T) {
	patterns := []string{anthropicLimits.Pattern, mistralLimits.Pattern, googleLimits.Pattern, geminiNamePattern,
		`^[a-c]{2}[x-]*$`, `^[-a]+$`}
	inputs := []string{"", "a", "A", "_", "-", "abc", "call_1", "call-1", "call|1", "a.b", "a:b", "9abc", "_x", "é", "aé",
		"abcdefghi", "abcdefgh", "abcdefghij", "ab", "abx-x", "ab-", "a-", "--a", "x\x00", strings.Repeat("z", 100)}
	for _, p := range patterns {
		seq, ok := parseClassSeq(p)
		if !ok {
			t.Fatalf("%s is not parsed as a class sequence", p)
		}
		re := regexp.MustCompile(p)
		for _, in := range inputs {
			if got, want := seq.MatchString(in), re.MatchString(in); got != want {
				t.Errorf("%s on %q: %v, regexp says %v", p, in, got, want)
			}
		}
	}
	for _, p := range []string{`^[a-z]*[a-z]$`, `^a+$`, `[a]`, `^[^a]$`, `^[a\]]$`} {
		if _, ok := parseClassSeq(p); ok {
			t.Errorf("%s parsed as a class sequence; it must fall back to the regexp", p)
		}
	}
}

func FuzzClassSeq(f *testing.F) {
	f.Add(anthropicLimits.Pattern, "call_1")
	f.Add(geminiNamePattern, "a.b")
	f.Fuzz(func(t *testing.T, pattern, in string) {
		seq, ok := parseClassSeq(pattern)
		if !ok {
			return
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			t.Fatalf("%q parses as a class sequence but not as a regexp", pattern)
		}
		if seq.MatchString(in) != re.MatchString(in) {
			t.Fatalf("%q on %q: class sequence %v, regexp %v", pattern, in, seq.MatchString(in), re.MatchString(in))
		}
	})
}

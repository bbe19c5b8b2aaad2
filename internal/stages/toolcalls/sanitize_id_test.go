package toolcalls

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
)

// TestSanitizeID pins the sanitizeId samples of spec §3.6.
func TestSanitizeID(t *testing.T) {
	tests := []struct {
		in, strict, strict9 string
	}{
		{"", "defaulttoolid", "defaultid"},
		{"___", "sanitizedtoolid", "44d8b78be"},
		{"ab", "ab", "fb8e20fc2"},
		{"toolu_01ABC", "toolu01ABC", "toolu01AB"},
		{"call|item:123", "callitem123", "callitem1"},
	}
	for _, tt := range tests {
		if got := (sanitizer{mode: policy.IDModeStrict}).sanitize(tt.in); got != tt.strict {
			t.Errorf("strict sanitize(%q) = %q, want %q", tt.in, got, tt.strict)
		}
		if got := (sanitizer{mode: policy.IDModeStrict9}).sanitize(tt.in); got != tt.strict9 {
			t.Errorf("strict9 sanitize(%q) = %q, want %q", tt.in, got, tt.strict9)
		}
	}
}

// TestAlnum covers the byte filter under both modes: ids that keep every
// byte (returned as they are), removals at the start, the end and in runs,
// the bytes of non-ASCII text, and an id with nothing left. The long ids
// have the shapes and lengths of docs/real-shapes.md: Chat Completions'
// call_ + 24 base62 (and its sanitised form), the Responses pair
// (|fc_ + 50 hex), Anthropic's toolu_01 + 22 base62, MiniMax's
// call_function_ form and a proxy's name-timestamp-index form.
func TestAlnum(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"callXk3vQ9pLmN2rT8wY5zA1bC4d", "callXk3vQ9pLmN2rT8wY5zA1bC4d"},
		{"call_Xk3vQ9pLmN2rT8wY5zA1bC4d", "callXk3vQ9pLmN2rT8wY5zA1bC4d"},
		{"_lead", "lead"},
		{"trail-", "trail"},
		{"a__b--c..d", "abcd"},
		{"call_Rq7vK2mXc9LpT4wZ8bN1yH3s|fc_0b652338ac8406ca0169a1e44f3c5d7e9b2a6c8f0d1e3a5b7c",
			"callRq7vK2mXc9LpT4wZ8bN1yH3sfc0b652338ac8406ca0169a1e44f3c5d7e9b2a6c8f0d1e3a5b7c"},
		{"toolu_01A9bQ7xKm3ZpR8sT2vW5yLc", "toolu01A9bQ7xKm3ZpR8sT2vW5yLc"},
		{"call_function_4k2m9x7q1z3b_2", "callfunction4k2m9x7q1z3b2"},
		{"exec-1733312456789012345-1", "exec17333124567890123451"},
		{"idé中9", "id9"},
		{" \t\n", ""},
		{"-_.:|", ""},
	}
	for _, tt := range tests {
		if got := alnum(tt.in); got != tt.want {
			t.Errorf("alnum(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got, want := alnumPrefix(tt.in) == len(tt.in), tt.want == tt.in; got != want {
			t.Errorf("alnumPrefix(%q) covers it: %v, want %v", tt.in, got, want)
		}
	}
}

// TestSanitizeKimi pins the newer-build native Kimi exemption in strict mode.
func TestSanitizeKimi(t *testing.T) {
	keep := sanitizer{mode: policy.IDModeStrict, keepKimi: true}
	if got := keep.sanitize("functions.read:0"); got != "functions.read:0" {
		t.Errorf("kimi id kept = %q", got)
	}
	if got := keep.sanitize("functions.read:x"); got != "functionsreadx" {
		t.Errorf("non-kimi id = %q, want functionsreadx", got)
	}
	drop := sanitizer{mode: policy.IDModeStrict}
	if got := drop.sanitize("functions.read:0"); got != "functionsread0" {
		t.Errorf("kimi id without exemption = %q, want functionsread0", got)
	}
	if got := (sanitizer{mode: policy.IDModeStrict9, keepKimi: true}).sanitize("functions.read:0"); got != "functions" {
		t.Errorf("strict9 kimi id = %q, want functions", got)
	}
}

// TestMakeUnique pins the verified values of spec §3.6 for makeUnique.
func TestMakeUnique(t *testing.T) {
	a50 := strings.Repeat("a", 50)
	// The spec's "two 50-char ids aaaa…a, aaaa…a_": the second is the first
	// plus an underscore (its hash, 567d558e, is that of 50 a's and "_").
	a50u := a50 + "_"
	tests := []struct {
		name  string
		mode  policy.IDMode
		seeds []string
		want  []string
	}{
		{"strict collision", policy.IDModeStrict, []string{"call_a|b", "call_a:b"}, []string{"callab", "callab164e5cbf"}},
		{"strict9 collision", policy.IDModeStrict9, []string{"call_a|b", "call_a:b"}, []string{"a4b42f05f", "1f565f6b4"}},
		{"strict repeat", policy.IDModeStrict, []string{"edit:22", "edit:22:2"}, []string{"edit22", "edit222"}},
		{"strict9 repeat", policy.IDModeStrict9, []string{"edit:22", "edit:22:2"}, []string{"abe926ef6", "2e112bc8c"}},
		{"strict orphan", policy.IDModeStrict, []string{"call_x:tool_result:1"}, []string{"callxtoolresult1"}},
		{"strict9 orphan", policy.IDModeStrict9, []string{"call_x:tool_result:1"}, []string{"callxtool"}},
		{"strict long", policy.IDModeStrict, []string{a50, a50u}, []string{strings.Repeat("a", 40), strings.Repeat("a", 32) + "567d558e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sanitizer{mode: tt.mode}
			used := idSet{}
			for i, seed := range tt.seeds {
				got := s.makeUnique(seed, used)
				if got != tt.want[i] {
					t.Errorf("makeUnique(%q) = %q, want %q", seed, got, tt.want[i])
				}
				used[got] = struct{}{}
			}
		})
	}
}

// TestMakeUniqueSuffixes checks the x2… suffixes and the clock-free fallback
// when every earlier candidate is taken.
func TestMakeUniqueSuffixes(t *testing.T) {
	s := sanitizer{mode: policy.IDModeStrict}
	seed := "edit:1"
	used := idSet{"edit1": {}}
	hashed := "edit1" + sha256Hex(seed)[:8]
	used[hashed] = struct{}{}
	if got := s.makeUnique(seed, used); got != hashed+"x2" {
		t.Fatalf("makeUnique = %q, want %q", got, hashed+"x2")
	}
	for n := 2; n <= 999; n++ {
		used[hashed+"x"+strconv.Itoa(n)] = struct{}{}
	}
	got := s.makeUnique(seed, used)
	if want := "edit1" + sha256Hex(seed + ":1000")[:8]; got != want {
		t.Fatalf("fallback = %q, want %q", got, want)
	}
}

// TestFitID checks that fitted ids satisfy each provider's limits and stay
// apart from used ids.
func TestFitID(t *testing.T) {
	limits := []contract.IDLimits{
		{MaxLen: 64},
		{MaxLen: 40},
		{MaxLen: 64, Pattern: `^[a-zA-Z0-9_-]+$`},
		{Pattern: `^[a-zA-Z0-9_-]+$`},
		{ExactLen: 9, Pattern: `^[a-zA-Z0-9]{9}$`},
		{Pattern: `^[a-zA-Z0-9]+$`},
	}
	seeds := []string{"call_" + strings.Repeat("y", 80) + "|fc_1", "functions.read:0", "|||", "a"}
	for _, lim := range limits {
		used := idSet{}
		for _, seed := range append(seeds, seeds...) {
			id, ok := fitID(seed, lim, used)
			if !ok || !lim.Valid(id) {
				t.Fatalf("fitID(%q, %+v) = %q, %v", seed, lim, id, ok)
			}
			if _, dup := used[id]; dup {
				t.Fatalf("fitID(%q, %+v) = %q, already used", seed, lim, id)
			}
			used[id] = struct{}{}
		}
	}
	if _, ok := fitID("x", contract.IDLimits{Pattern: `^_+$`}, idSet(nil)); ok {
		t.Fatal("fitID succeeded for a pattern that rejects alphanumerics")
	}
}

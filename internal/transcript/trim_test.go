package transcript

import (
	"strings"
	"testing"
	"unicode"
)

func TestTrimIDIsJavaScriptTrim(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"toolu_1", "toolu_1"},
		{" \t\n\r\v\ftoolu_1 ", "toolu_1"},
		{"\ufefftoolu_1\ufeff", "toolu_1"}, // JS trims the BOM; TrimSpace does not
		{"toolu_1\u0085", "toolu_1\u0085"}, // JS keeps NEL; TrimSpace removes it
		{"\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000c9\u3000", "c9"},
		{"\u180ec9", "\u180ec9"}, // U+180E is no longer a space (Unicode 6.3)
		{"a b", "a b"},
		{"   ", ""},
		{"", ""},
		{"\xffc9 ", "\xffc9"}, // invalid UTF-8 is not white space
	} {
		if got := TrimID(tc.in); got != tc.want {
			t.Errorf("TrimID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTrimIDSpaceSet checks the whole trimmed set against its definition:
// every rune JS removes, and no other, over the Basic Multilingual Plane,
// at the id's start and at its end.
func TestTrimIDSpaceSet(t *testing.T) {
	js := map[rune]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, 0xFEFF: true, 0x2028: true, 0x2029: true}
	for r := rune(0); r <= 0xFFFF; r++ {
		want := js[r] || unicode.Is(unicode.Zs, r)
		if got := TrimID(string(r)+"x") == "x"; got != want {
			t.Errorf("U+%04X first: trimmed %v, want %v", r, got, want)
		}
		if got := TrimID("x"+string(r)) == "x"; got != want {
			t.Errorf("U+%04X last: trimmed %v, want %v", r, got, want)
		}
	}
	if strings.TrimSpace("\u0085") != "" || TrimID("\u0085") == "" {
		t.Fatal("U+0085: TrimSpace removes it, JavaScript keeps it")
	}
}

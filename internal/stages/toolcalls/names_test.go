package toolcalls

import (
	"strings"
	"testing"
)

// TestAllowListWireForms: an allowed name the target refuses also allows
// the wire names ToolNames gives it (issue 29), its readable form and its
// hashed one; a name the target takes allows only itself.
func TestAllowListWireForms(t *testing.T) {
	long := "mcp." + strings.Repeat("workspace_", 7) // 74 characters: hashed
	allow := newAllowList([]string{"browser.open", " Read ", long}, strictNames)
	hashed := WireToolNames([]string{long}, []string{long}, strictNames)[long]
	collided := WireToolNames([]string{"browser.open"}, []string{"browser_open", "browser.open"}, strictNames)["browser.open"]
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"browser.open", true}, {"browser_open", true}, {"BROWSER_OPEN", true}, {collided, true},
		{"read", true}, {long, true}, {hashed, true},
		{"browser-open", false}, {"open", false}, {"write", false},
	} {
		if got := allow.allows(tc.name); got != tc.want {
			t.Errorf("allows(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	if orig, ok := allow.wireOf("browser_open"); !ok || orig != "browser.open" {
		t.Errorf("wireOf(browser_open) = %q, %v", orig, ok)
	}
	if _, ok := allow.wireOf("read"); ok {
		t.Error("an allowed name is not a wire form")
	}
	if g := newAllowList([]string{"browser.open"}, geminiNames); g.allows("browser_open") {
		t.Error("Gemini takes browser.open: browser_open is not its wire name")
	}
}

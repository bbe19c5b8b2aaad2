package main

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/wire"
)

// TestSanitizeRenderRequest: `worker sanitize --render request` prints,
// over the examples, a request body of each of the six formats, and the
// messages are those of the plain payload.
func TestSanitizeRenderRequest(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	seen := map[string]bool{}
	for _, p := range paths {
		code, out, stderr := runCLI(t, "", "sanitize", "--render", "request", p)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", p, code, stderr)
		}
		var payload struct {
			Format   string          `json:"request_format"`
			Request  json.RawMessage `json:"request"`
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal([]byte(out), &payload); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if payload.Format == "" || len(payload.Request) == 0 || payload.Request[0] != '{' {
			t.Fatalf("%s: no request body in %s", p, out)
		}
		seen[payload.Format] = true
		_, plain, _ := runCLI(t, "", "sanitize", p)
		if got, want := messagesBytes(t, []byte(out)), messagesBytes(t, []byte(plain)); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: --render request changed the messages", p)
		}
	}
	var missing []string
	for _, f := range wire.Formats {
		if !seen[string(f)] {
			missing = append(missing, string(f))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("no example renders as %v", missing)
	}
	if code, _, stderr := runCLI(t, "", "sanitize", "--render", "html", paths[0]); code != exitUsage || !strings.Contains(stderr, "options.render") {
		t.Fatalf("--render html: exit %d, %s", code, stderr)
	}
}

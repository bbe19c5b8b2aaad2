package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/wire"
)

// TestSanitizeRenderRequest: `worker sanitize --render request` prints,
// over the examples, a request body of each of the six formats (the
// request-*.json examples, whose option `next` completes the body), and the
// messages are those of the plain payload. An example whose history ends
// with the assistant's turn for a model that refuses prefill is the
// unsendable dead letter that names options.next.
func TestSanitizeRenderRequest(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	seen := map[string]bool{}
	for _, p := range paths {
		code, out, stderr := runCLI(t, "", "sanitize", "--render", "request", p)
		if code == exitUsage && !strings.HasPrefix(filepath.Base(p), "request-") &&
			strings.Contains(stderr, "unsendable") && strings.Contains(stderr, "options.next") {
			continue
		}
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

// TestReplayBatch: `worker replay --batch` writes a batch file whose line
// carries the session's request for the batch API, and refuses a --target
// of another format.
func TestReplayBatch(t *testing.T) {
	session := filepath.Join("..", "..", "examples", "session.jsonl")
	for _, kind := range []string{"anthropic", "openai-chat", "openai-responses"} {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, "", "replay", session, "--batch", kind, "--model", "m-1", "--max-tokens", "100", "--out", out, "--concurrency", "1")
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s %s", kind, code, stdout, stderr)
		}
		data, err := os.ReadFile(filepath.Join(out, kind+"-batch-0001.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var line map[string]json.RawMessage
		if err := json.Unmarshal(data, &line); err != nil || string(line["custom_id"]) != `"session"` {
			t.Fatalf("%s: line %s: %v", kind, data, err)
		}
		envelope := line["body"]
		if kind == "anthropic" {
			envelope = line["params"]
		}
		if !strings.Contains(string(envelope), `"model":"m-1"`) || !strings.Contains(string(envelope), `"messages"`) && !strings.Contains(string(envelope), `"input"`) {
			t.Fatalf("%s: line %s", kind, data)
		}
	}
	code, _, stderr := runCLI(t, "", "replay", session, "--batch", "anthropic", "--model", "m", "--max-tokens", "1",
		"--target", "openai/openai-completions/gpt-4.1", "--out", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "needs anthropic-messages") {
		t.Fatalf("mismatched --target: exit %d, %s", code, stderr)
	}
}

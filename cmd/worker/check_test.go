package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckExamples: every damaged example is unsendable as it is, and its
// sanitized payload passes the same check.
func TestCheckExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*-damaged.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, out, errOut := runCLI(t, "", "check", f)
			if code != exitUsage || !strings.Contains(errOut, "unsendable to ") || !strings.Contains(out, "] \n") && !strings.Contains(out, "]\n") {
				t.Fatalf("check of the damaged job: exit %d\n%s%s", code, out, errOut)
			}
			code, payload, errOut := runCLI(t, "", "sanitize", f)
			if code != exitOK {
				t.Fatalf("sanitize: exit %d: %s", code, errOut)
			}
			code, out, errOut = runCLI(t, payload, "check", "-")
			if code != exitOK || !strings.HasPrefix(out, "ok: ") {
				t.Fatalf("check of the sanitized payload: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}

// TestCheckViolations prints each violation with its path and rule.
func TestCheckViolations(t *testing.T) {
	job := `{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"messages":[` +
		`{"role":"assistant","content":[{"type":"toolCall","id":"call|1","name":"read","arguments":{}}]},{"role":"user","content":"cut \ud83d"}]}`
	code, out, errOut := runCLI(t, job, "check")
	want := "messages[0]: the first turn is \"assistant\"; the target wants a user turn first [first_turn]\n" +
		"messages[0].content[0]: tool-call id \"call|1\" does not match ^[a-zA-Z0-9_-]+$ [tool_call_id]\n" +
		"messages[1]: lone UTF-16 surrogate \\ud83d [text_validity]\n" +
		"messages[0].content[0]: tool call \"call|1\" has no tool result right after its turn [tool_pairing]\n"
	if code != exitUsage || out != want || !strings.Contains(errOut, "(4 violations: first_turn 1, text_validity 1, tool_call_id 1, tool_pairing 1)") {
		t.Fatalf("exit %d\n%s\nstderr %s", code, out, errOut)
	}
	// The same messages for a passthrough: only the surrogate is a fault.
	code, out, _ = runCLI(t, job, "check", "--target", "acme/acme-chat/x")
	if code != exitUsage || out != "messages[1]: lone UTF-16 surrogate \\ud83d [text_validity]\n" {
		t.Fatalf("--target: exit %d\n%s", code, out)
	}
}

// TestCheckContextWindow: 150 images are within Anthropic's cap only for a
// model with a context window above 200k tokens.
func TestCheckContextWindow(t *testing.T) {
	img := `{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==","mimeType":"image/png"}`
	msgs := strings.Repeat(`{"role":"user","content":[`+img+`]},`, 150)
	job := `{"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"options":{"context_window_tokens":1000000},"messages":[` + strings.TrimSuffix(msgs, ",") + `]}`
	if code, out, errOut := runCLI(t, job, "check"); code != exitOK || out != "ok: anthropic-messages\n" {
		t.Fatalf("1M context: exit %d %s%s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, job, "check", "--context-window-tokens", "200000"); code != exitUsage || out != "messages: 150 images > 100 per request [images_per_request]\n" {
		t.Fatalf("200k context: exit %d %s", code, out)
	}
}

func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	if err := os.WriteFile(path, []byte(`{"messages":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, says string }{
		{`not json`, "not a JSON object"},
		{`{"messages":[]}`, "target: required"},
		{`{"target":{"provider":"x"}}`, "messages: required"},
	} {
		if code, _, errOut := runCLI(t, tc.in, "check", "-"); code != exitUsage || !strings.Contains(errOut, tc.says) {
			t.Errorf("%s: exit %d %s", tc.in, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "", "check", path, "--target", "anthropic/anthropic-messages/claude-opus-4-6"); code != exitUsage || !strings.Contains(errOut, "the request has no message") {
		t.Errorf("empty messages: exit %d %s", code, errOut)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = dispatch(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// messagesBytes returns the exact bytes of each element of a document's
// "messages" member (the array's own spacing is not part of a message).
func messagesBytes(t *testing.T, doc []byte) []string {
	t.Helper()
	obj, err := transcript.ParseObject(bytes.TrimSpace(doc))
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := obj.Get("messages")
	if !ok {
		t.Fatal("no messages member")
	}
	elems, err := transcript.ParseArray(raw)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = string(e)
	}
	return out
}

func TestSanitizeCleanExampleIsByteIdentical(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("..", "..", "examples", "anthropic-clean.json"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "sanitize", filepath.Join("..", "..", "examples", "anthropic-clean.json"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, want := messagesBytes(t, []byte(out)), messagesBytes(t, in)
	if len(got) != len(want) {
		t.Fatalf("%d messages out, %d in", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("message %d is not byte-identical:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	// The same job on stdin gives the same bytes.
	if code, again, _ := runCLI(t, string(in), "sanitize", "-"); code != exitOK || again != out {
		t.Fatal("stdin and file give different payloads")
	}
}

func TestSanitizeEveryExample(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.json"))
	if len(files) < 6 {
		t.Fatalf("found %d examples", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, out, errOut := runCLI(t, "", "sanitize", f)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var payload struct {
				JobID    string            `json:"job_id"`
				Messages []json.RawMessage `json:"messages"`
				Report   struct {
					Changed bool `json:"changed"`
				} `json:"report"`
			}
			if err := json.Unmarshal([]byte(out), &payload); err != nil {
				t.Fatal(err)
			}
			if payload.JobID == "" || len(payload.Messages) == 0 {
				t.Fatalf("payload %s", out)
			}
			if strings.Contains(f, "damaged") && !payload.Report.Changed {
				t.Fatal("a damaged example came back unchanged")
			}
		})
	}
}

func TestSanitizeSessionFile(t *testing.T) {
	session := filepath.Join("..", "..", "examples", "session.jsonl")
	code, out, errOut := runCLI(t, "", "sanitize", session, "--target", "anthropic/anthropic-messages/claude-opus-4-6")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"session_repair":{"dropped_lines":1}`) {
		t.Fatalf("no repair report: %s", out)
	}
	// Without --target, the last assistant turn's target is used.
	if code, out, errOut = runCLI(t, "", "sanitize", session); code != exitOK || !strings.Contains(out, `"provider":"anthropic"`) {
		t.Fatalf("exit %d: %s %s", code, errOut, out)
	}
}

func TestSanitizeBadInputAndUsage(t *testing.T) {
	cases := []struct {
		name, stdin string
		args        []string
		code        int
		says        string
	}{
		{"invalid json", `{"job_id":`, []string{"sanitize"}, exitUsage, "worker sanitize: invalid_json: "},
		{"missing field", `{"job_id":"j","tenant":"t","session_id":"s","messages":[]}`, []string{"sanitize", "-"}, exitUsage, "invalid_target: target: required field is missing"},
		{"bad target flag", "{\"type\":\"session\",\"id\":\"s\"}\n", []string{"sanitize", "--target", "anthropic"}, exitUsage, "--target"},
		{"two inputs", "", []string{"sanitize", "a", "b"}, exitUsage, "one input at a time"},
		{"missing file", "", []string{"sanitize", "/nonexistent/job.json"}, exitUsage, "no such file"},
		{"unknown command", "", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"help", "", []string{"sanitize", "--help"}, exitOK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, c.stdin, c.args...)
			if code != c.code || !strings.Contains(errOut, c.says) {
				t.Fatalf("exit %d, stderr %q; want %d containing %q", code, errOut, c.code, c.says)
			}
			if c.code != exitOK && strings.Count(strings.TrimSpace(errOut), "\n") > 0 && c.name != "unknown command" {
				t.Fatalf("reason is not one line: %q", errOut)
			}
		})
	}
}

func TestReplayCommand(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	data, _ := os.ReadFile(filepath.Join("..", "..", "examples", "session.jsonl"))
	if err := os.WriteFile(filepath.Join(in, "s.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "broken.jsonl"), []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "replay", in, "--out", out, "--concurrency", "2")
	if code != exitUsage || !strings.Contains(stdout, "broken.jsonl: invalid_job: empty session file") || !strings.Contains(stderr, "1 of 2 sessions failed") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	payload, err := os.ReadFile(filepath.Join(out, "s.ready.json"))
	if err != nil || !json.Valid(payload) {
		t.Fatalf("payload: %v", err)
	}
	// --resume skips the finished session and tries the failed one again.
	code, stdout, _ = runCLI(t, "", "replay", in, "--out", out, "--resume")
	if code != exitUsage || !strings.Contains(stdout, "1 skipped") || !strings.Contains(stdout, "broken.jsonl") {
		t.Fatalf("resume: exit %d, %s", code, stdout)
	}
}

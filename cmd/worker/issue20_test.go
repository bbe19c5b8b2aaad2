package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// payloadTarget reads the target of a ready payload.
func payloadTarget(t *testing.T, payload string) transcript.Target {
	t.Helper()
	var doc struct {
		Target transcript.Target `json:"target"`
	}
	if err := json.Unmarshal([]byte(payload), &doc); err != nil {
		t.Fatalf("payload: %v\n%.300s", err, payload)
	}
	return doc.Target
}

// TestSanitizeTargetOverridesAJob: --target on a job sanitizes it for that
// target (issue 20: "invalid_job: empty session file").
func TestSanitizeTargetOverridesAJob(t *testing.T) {
	job := filepath.Join("..", "..", "examples", "anthropic-damaged.json")
	for _, args := range [][]string{
		{"sanitize", "--target", "openai/openai-completions/gpt-4.1", job},
		{"sanitize", job, "--target", "openai/openai-completions/gpt-4.1", "--render", "request"},
	} {
		code, out, errOut := runCLI(t, "", args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if got := payloadTarget(t, out); got != (transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}) {
			t.Fatalf("%v: target %+v", args, got)
		}
	}
	if code, _, errOut := runCLI(t, "", "sanitize", "--target", "openai", job); code != exitUsage || !strings.Contains(errOut, "--target") {
		t.Fatalf("a bad --target on a job: exit %d, %s", code, errOut)
	}
}

// writeTemp writes data to a file in a fresh temporary directory.
func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// piSession is a pi v3 session of real shape whose last assistant entry is
// OpenClaw's delivery mirror, and whose compaction has no firstKeptEntryId
// (on main: the mirror chose the target, and the compaction panicked
// DecodeSession).
const piSession = `{"type":"session","version":3,"id":"5e0b7d19-c2a4-4f83-9b6e-18d3f0a7c2e4","timestamp":"2026-04-02T11:00:00.000Z","cwd":"/home/dev/app"}
{"type":"message","id":"0c4e8a21","parentId":null,"timestamp":"2026-04-02T11:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"summarise the logs"}],"timestamp":1775127601000}}
{"type":"message","id":"3d7f1b95","parentId":"0c4e8a21","timestamp":"2026-04-02T11:00:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Two errors, both timeouts."}],"api":"openai-responses","provider":"openai","model":"gpt-5","usage":{"input":22410,"output":96,"cacheRead":0,"cacheWrite":0,"totalTokens":22506},"stopReason":"stop","timestamp":1775127609000}}
{"type":"compaction","id":"9f2c6e08","parentId":"3d7f1b95","timestamp":"2026-04-02T11:30:00.000Z","summary":"Logs summarised: two timeouts.","tokensBefore":154020}
{"type":"message","id":"a8e4c730","parentId":"9f2c6e08","timestamp":"2026-04-02T11:30:02.000Z","message":{"role":"user","content":[{"type":"text","text":"which hosts?"}],"timestamp":1775129402000}}
{"type":"message","id":"b5f9d241","parentId":"a8e4c730","timestamp":"2026-04-02T11:30:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"db-2 and db-3."}],"api":"openai-responses","provider":"openai","model":"gpt-5","usage":{"input":3120,"output":11,"cacheRead":0,"cacheWrite":0,"totalTokens":3131},"stopReason":"stop","timestamp":1775129407000}}
{"type":"message","id":"c6a0e352","parentId":"b5f9d241","timestamp":"2026-04-02T11:30:08.000Z","message":{"role":"assistant","content":[{"type":"text","text":"db-2 and db-3."}],"api":"openai-responses","provider":"openclaw","model":"delivery-mirror","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"stopReason":"stop","timestamp":1775129408000}}
`

// TestSanitizePiSessionEndingInAMirror: without --target the session is
// sanitized for the model it talked to, not the stand-in mirror, and the
// compaction without a keep-point is read and counted.
func TestSanitizePiSessionEndingInAMirror(t *testing.T) {
	code, out, errOut := runCLI(t, "", "sanitize", writeTemp(t, "pi.jsonl", piSession))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := payloadTarget(t, out); got != (transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}) {
		t.Fatalf("target %+v", got)
	}
	if !strings.Contains(out, `"compaction_keep_points_missing":1`) || strings.Contains(out, "summarise the logs") || !strings.Contains(out, "which hosts?") {
		t.Fatalf("compaction not read as the runtime reads it:\n%s", out)
	}
}

// TestReplayCommandGoesPastAPoisonedFile: 'worker replay DIR' over real
// files (the pi session that panicked DecodeSession on main, a broken file
// and the example session) writes every readable session, names the
// broken one and ends with a summary.
func TestReplayCommandGoesPastAPoisonedFile(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"example.jsonl": string(example), "pi.jsonl": piSession, "broken.jsonl": "not json\n"} {
		if err := os.WriteFile(filepath.Join(in, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "", "replay", in, "--out", out, "--concurrency", "2")
	if code != exitUsage || !strings.Contains(stdout, "3 sessions found") || !strings.Contains(stdout, "2 delivered") ||
		!strings.Contains(stdout, "broken.jsonl: invalid_job") || !strings.Contains(stderr, "1 of 3 sessions failed") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, name := range []string{"example.ready.json", "pi.ready.json"} {
		if data, err := os.ReadFile(filepath.Join(out, name)); err != nil || !json.Valid(data) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// panickyReader stands for a bug met while a command runs: its Read panics.
type panickyReader struct{}

func (panickyReader) Read([]byte) (int, error) {
	panic("runtime error: index out of range [7] with length 7")
}

// TestCommandPanicIsInternalError: a panic in a command is a bug, reported
// as internal_error with exit 1, never Go's exit 2 for a panic, which reads
// as bad input (issue 20).
func TestCommandPanicIsInternalError(t *testing.T) {
	for _, cmd := range []string{"sanitize", "check"} {
		var out, errOut strings.Builder
		code := dispatch([]string{cmd, "-"}, panickyReader{}, &out, &errOut)
		if code != exitRuntime || !strings.HasPrefix(errOut.String(), "worker "+cmd+": internal_error: ") ||
			!strings.Contains(errOut.String(), "index out of range") || strings.Count(strings.TrimSpace(errOut.String()), "\n") > 0 {
			t.Errorf("%s: exit %d, stderr %q; want %d and one internal_error line", cmd, code, errOut.String(), exitRuntime)
		}
	}
}

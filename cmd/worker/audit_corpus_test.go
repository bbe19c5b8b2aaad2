package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/audit"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// auditTargets is one target of each request format and contract family,
// with the provider rows that change a rule (own ids, thinking replay).
var auditTargets = []transcript.Target{
	{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"},
	{Provider: "anthropic-vertex", API: "anthropic-messages", Model: "claude-sonnet-4"},
	{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2"},
	{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-7-sonnet-20250219-v1:0"},
	{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
	{Provider: "openai", API: "openai-responses", Model: "gpt-5"},
	{Provider: "openai-codex", API: "openai-codex-responses", Model: "gpt-5-codex"},
	{Provider: "azure-openai", API: "azure-openai-responses", Model: "gpt-5"},
	{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"},
	{Provider: "google-gemini-cli", API: "google-gemini-cli", Model: "gemini-3-pro-preview"},
	{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"},
	{Provider: "openrouter", API: "openai-completions", Model: "anthropic/claude-sonnet-4"},
	{Provider: "github-copilot", API: "openai-completions", Model: "gpt-4.1"},
	{Provider: "acme-llm", API: "acme-chat", Model: "acme-1"},
}

// writeSessionFile writes a damaged generated message array as an OpenClaw
// session file: the header line, then one message entry per message, each
// the child of the one before. (The undamaged real shapes come with their own
// session files, sessiongen.RealCorpus.)
func writeSessionFile(t *testing.T, path, id string, history []byte) {
	t.Helper()
	var msgs []json.RawMessage
	if err := json.Unmarshal(history, &msgs); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":"2026-04-12T10:15:00.000Z","cwd":"/home/dev/project"}`+"\n", id)
	parent := "null"
	for i, m := range msgs {
		entry := fmt.Sprintf("%08x", 0x1e0a0000+i)
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-04-12T10:15:%02d.000Z","message":%s}`+"\n", entry, parent, i%60, m)
		parent = fmt.Sprintf("%q", entry)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAuditGeneratedCorpus writes a corpus of generated sessions and audits
// it for every target with --fail-on-drop: the real shapes of every API
// family and session header version (sessiongen.RealCorpus: real ids,
// partialJson left on finished calls, foreign turns after a model switch,
// v1 compactions, delivery mirrors), and one damaged session per target,
// written by that target's model with the damage of real archives. No
// well-formed call or result may be dropped, no pipeline may fail, and every
// session that comes out ready has a request body that passes its contract.
func TestAuditGeneratedCorpus(t *testing.T) {
	dir := t.TempDir()
	real := sessiongen.RealCorpus(20, 2*len(sessiongen.RealAPIs))
	for name, data := range real {
		if err := os.WriteFile(filepath.Join(dir, "real-"+name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, tg := range auditTargets {
		g := sessiongen.New(sessiongen.Config{Seed: uint64(20 + i), Messages: 80, ToolCallDensity: 0.7, Damage: sessiongen.Realistic(), Target: tg, RealLengthIDs: true})
		writeSessionFile(t, filepath.Join(dir, fmt.Sprintf("%02d-%s.jsonl", i, tg.Provider)), fmt.Sprintf("sess-%02d", i), g.History())
	}
	code, rep, stderr := auditEveryTarget(t, dir)
	if rep.Totals.Sessions != (len(real)+len(auditTargets))*len(auditTargets) || rep.Totals.Calls.In == 0 {
		t.Fatalf("totals %+v", rep.Totals)
	}
	for _, s := range rep.Sessions {
		for _, d := range s.Drops {
			if d.Valid() {
				t.Errorf("%s for %s: %s %s %q %q dropped: %s", filepath.Base(s.Path), s.Target, d.Kind, where(d), d.ID, d.Name, d.Reason)
			}
		}
		if s.Outcome != "ready" {
			t.Errorf("%s for %s: %s: %s", filepath.Base(s.Path), s.Target, s.Outcome, s.Reason)
		}
		if s.Outcome == string(deadletter.CodeInternalError) {
			t.Errorf("%s for %s: %s", filepath.Base(s.Path), s.Target, s.Reason)
		}
		if s.Request != nil && !s.Request.OK {
			t.Errorf("%s for %s: request body: %v", filepath.Base(s.Path), s.Target, s.Request.Violations)
		}
	}
	if code != exitOK {
		t.Errorf("exit %d: %s", code, stderr)
	}
	t.Logf("totals: %+v", rep.Totals)
}

// auditEveryTarget runs `worker audit input --json --fail-on-drop` for
// every target of auditTargets and reads the report.
func auditEveryTarget(t *testing.T, input string) (int, audit.Report, string) {
	t.Helper()
	args := []string{"audit", input, "--json", "--fail-on-drop"}
	for _, tg := range auditTargets {
		args = append(args, "--target", tg.Provider+"/"+tg.API+"/"+tg.Model)
	}
	code, stdout, stderr := runCLI(t, "", args...)
	var rep audit.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("exit %d, stderr %s, stdout not JSON: %v", code, stderr, err)
	}
	return code, rep, stderr
}

func where(d audit.Drop) string {
	if d.Block < 0 {
		return fmt.Sprintf("messages[%d]", d.Message)
	}
	return fmt.Sprintf("messages[%d].content[%d]", d.Message, d.Block)
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/audit"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
)

// auditSession is a session as pi writes one: a read and an exec answered,
// a call in a turn that failed, and a result whose call is not on the
// branch.
const auditSession = `{"type":"session","version":3,"id":"3f1c9a7e-2b4d-4e8f-9a6c-1d2e3f4a5b6c","timestamp":"2026-04-12T10:15:00.000Z","cwd":"/home/dev/project"}
{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-04-12T10:15:00.000Z","message":{"role":"user","content":"Why does the build fail?","timestamp":1776000900000}}
{"type":"message","id":"b2c3d4e5","parentId":"a1b2c3d4","timestamp":"2026-04-12T10:15:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Reading the log."},{"type":"toolCall","id":"toolu_01A09q90qw90lq917835lq9a","name":"read","arguments":{"path":"build.log"}},{"type":"toolCall","id":"toolu_01BkR7mZ3xT9wQpL2nVcY5hD","name":"exec","arguments":{"command":"go build ./..."}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"toolUse","timestamp":1776000903000}}
{"type":"message","id":"c3d4e5f6","parentId":"b2c3d4e5","timestamp":"2026-04-12T10:15:04.000Z","message":{"role":"toolResult","toolCallId":"toolu_01A09q90qw90lq917835lq9a","toolName":"read","content":[{"type":"text","text":"undefined: main"}],"isError":false,"timestamp":1776000904000}}
{"type":"message","id":"d4e5f6a7","parentId":"c3d4e5f6","timestamp":"2026-04-12T10:15:05.000Z","message":{"role":"toolResult","toolCallId":"toolu_01BkR7mZ3xT9wQpL2nVcY5hD","toolName":"exec","content":[{"type":"text","text":"exit status 1"}],"isError":true,"timestamp":1776000905000}}
{"type":"message","id":"e5f6a7b8","parentId":"d4e5f6a7","timestamp":"2026-04-12T10:15:06.000Z","message":{"role":"toolResult","toolCallId":"toolu_01Xy4pQ8rN2mK7vB3cJ6tW9s","toolName":"read","content":[{"type":"text","text":"stale"}],"isError":false,"timestamp":1776000906000}}
{"type":"message","id":"f6a7b8c9","parentId":"e5f6a7b8","timestamp":"2026-04-12T10:15:07.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01Pq3rS5tU7vW9xY1zA3bC5d","name":"read","arguments":{"path":"main.go"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"error","errorMessage":"overloaded_error","timestamp":1776000907000}}
{"type":"message","id":"a7b8c9d0","parentId":"f6a7b8c9","timestamp":"2026-04-12T10:15:08.000Z","message":{"role":"user","content":"Try again.","timestamp":1776000908000}}
`

func TestAuditCommandOnFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(auditSession), 0o644); err != nil {
		t.Fatal(err)
	}
	job, err := os.ReadFile(filepath.Join("..", "..", "examples", "mistral-damaged.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "job.json"), job, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "audit", dir, filepath.Join(dir, "job.json"), "--json", "--fail-on-drop",
		"--target", "anthropic/anthropic-messages/claude-opus-4-6", "--target", "mistral/mistral-conversations/mistral-large-latest")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep audit.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	// The directory gives the session; the job is named.
	if len(rep.Sessions) != 4 || rep.Sessions[0].Kind != "job" || rep.Sessions[2].Kind != "session" {
		t.Fatalf("sessions %+v", rep.Sessions)
	}
	for _, s := range rep.Sessions[2:] {
		if s.Outcome != audit.OutcomeReady || s.Calls.In != 3 || s.Calls.Out != 2 || s.Results.In != 3 || s.Results.Out != 2 {
			t.Fatalf("%s: %+v", s.Target, s)
		}
		classes := []string{}
		for _, d := range s.Drops {
			classes = append(classes, d.Kind+":"+d.Class)
		}
		if got := strings.Join(classes, ","); got != "result:no_call_on_branch,call:errored_turn" {
			t.Fatalf("%s: drops %s", s.Target, got)
		}
		if s.Request == nil || !s.Request.OK || s.Request.Calls != 2 || s.Request.Results != 2 {
			t.Fatalf("%s: request %+v", s.Target, s.Request)
		}
	}
	if rep.Sessions[3].Request.Format != "mistral-chat" {
		t.Fatalf("request format %s", rep.Sessions[3].Request.Format)
	}

	// The table says the same.
	code, stdout, stderr = runCLI(t, "", "audit", filepath.Join(dir, "s.jsonl"))
	if code != exitOK || !strings.Contains(stdout, "anthropic/anthropic-messages/claude-opus-4-6") ||
		!strings.Contains(stdout, "no_call_on_branch") || !strings.Contains(stdout, "errored_turn") || !strings.Contains(stdout, "ok anthropic-messages") {
		t.Fatalf("exit %d, stderr %s, table:\n%s", code, stderr, stdout)
	}
}

func TestAuditCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"audit"},
		{"audit", "x", "--target", "anthropic"},
		{"audit", "x", "--concurrency", "0"},
		{"audit", filepath.Join(t.TempDir(), "missing")},
	} {
		if code, _, _ := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func TestAuditExamples(t *testing.T) {
	examples := filepath.Join("..", "..", "examples")
	jobs, err := filepath.Glob(filepath.Join(examples, "*.json"))
	if err != nil || len(jobs) == 0 {
		t.Fatalf("examples: %v %v", jobs, err)
	}
	code, stdout, stderr := runCLI(t, "", append([]string{"audit", examples, "--fail-on-drop"}, jobs...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
}

func TestAuditDropFailure(t *testing.T) {
	for _, tc := range []struct {
		totals audit.Totals
		fails  bool
	}{
		{audit.Totals{Outcomes: map[string]int{"ready": 3}, DropsByClass: map[string]int{audit.ClassErroredTurn: 2}}, false},
		{audit.Totals{Outcomes: map[string]int{"ready": 3, "unsendable": 1}}, false},
		{audit.Totals{Outcomes: map[string]int{"ready": 3}, ValidDrops: 1}, true},
		{audit.Totals{Outcomes: map[string]int{"internal_error": 1}}, true},
	} {
		if err := dropFailure(tc.totals); (err != nil) != tc.fails {
			t.Errorf("%+v: %v", tc.totals, err)
		}
	}
}

// responsesSession is a GPT-5 session as pi-ai stores it: a reasoning item
// (its JSON as the thinking signature), and finished Responses calls with
// the call_id|item_id form and the partialJson the stream left.
const responsesSession = `{"type":"session","version":3,"id":"0c8f3b9e-7d2a-4f61-b5e4-9a1c2d3e4f50","timestamp":"2026-04-12T10:15:00.000Z","cwd":"/home/dev/project"}
{"type":"message","id":"1a2b3c4d","parentId":null,"timestamp":"2026-04-12T10:15:00.000Z","message":{"role":"user","content":[{"type":"text","text":"List the repo and read the README."}],"timestamp":1776000900000}}
{"type":"message","id":"2b3c4d5e","parentId":"1a2b3c4d","timestamp":"2026-04-12T10:15:04.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"**Listing first**","thinkingSignature":"{\"id\":\"rs_0d1371c17149d43901692c5b1e6f7c8190a3b2c4d5e6f70812\",\"type\":\"reasoning\",\"encrypted_content\":\"gAAAAABpLFseQ2x5bW9rZXlfZXhhbXBsZV9vbmx5X3JlYWxfc2hhcGU=\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"**Listing first**\"}]}"},{"type":"toolCall","id":"call_U8JZpDE0iGXlD6gNCFbaEPFj|fc_0d1371c17149d439536b3216fdaeeb975729fae923d5a4fd12","name":"bash","arguments":{"command":"ls -la"},"partialJson":"{\"command\":\"ls -la\"}"},{"type":"toolCall","id":"call_Q3mVx9Lr2TbN7cYe5KsW1hJd|fc_0d1371c17149d439536b3216fdaeeb975729fae923d5a4fd13","name":"read","arguments":{"path":"README.md"},"partialJson":"{\"path\":\"README.md\"}"}],"api":"openai-responses","provider":"openai","model":"gpt-5","usage":{"input":2310,"output":188,"cacheRead":0,"cacheWrite":0,"totalTokens":2498,"cost":{"input":0.0029,"output":0.0019,"cacheRead":0,"cacheWrite":0,"total":0.0048}},"stopReason":"toolUse","timestamp":1776000904000}}
{"type":"message","id":"3c4d5e6f","parentId":"2b3c4d5e","timestamp":"2026-04-12T10:15:05.000Z","message":{"role":"toolResult","toolCallId":"call_U8JZpDE0iGXlD6gNCFbaEPFj|fc_0d1371c17149d439536b3216fdaeeb975729fae923d5a4fd12","toolName":"bash","content":[{"type":"text","text":"README.md\ngo.mod\ncmd"}],"isError":false,"timestamp":1776000905000}}
{"type":"message","id":"4d5e6f7a","parentId":"3c4d5e6f","timestamp":"2026-04-12T10:15:05.500Z","message":{"role":"toolResult","toolCallId":"call_Q3mVx9Lr2TbN7cYe5KsW1hJd|fc_0d1371c17149d439536b3216fdaeeb975729fae923d5a4fd13","toolName":"read","content":[{"type":"text","text":"# hygiene"}],"isError":false,"timestamp":1776000905500}}
{"type":"message","id":"5e6f7a8b","parentId":"4d5e6f7a","timestamp":"2026-04-12T10:15:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"The repo holds a Go module; the README is one heading."}],"api":"openai-responses","provider":"openai","model":"gpt-5","usage":{"input":2600,"output":40,"cacheRead":2048,"cacheWrite":0,"totalTokens":2640,"cost":{"input":0.0007,"output":0.0004,"cacheRead":0.0003,"cacheWrite":0,"total":0.0014}},"stopReason":"stop","timestamp":1776000909000}}
`

// TestAuditResponsesSessionEverywhere is issue 20's first two defects seen
// through the audit: a faithful GPT-5 session must come back ready for its
// own target (the 29-byte call_id is what the wire sends) and keep both
// finished calls and their results on every other wire.
func TestAuditResponsesSessionEverywhere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpt5.jsonl")
	if err := os.WriteFile(path, []byte(responsesSession), 0o644); err != nil {
		t.Fatal(err)
	}
	code, rep, stderr := auditEveryTarget(t, path)
	if len(rep.Sessions) != len(auditTargets) {
		t.Fatalf("%d sessions", len(rep.Sessions))
	}
	for _, s := range rep.Sessions {
		if s.Outcome != audit.OutcomeReady {
			t.Errorf("%s: %s: %s", s.Target, s.Outcome, s.Reason)
			continue
		}
		if s.Calls.Out != 2 || s.Results.Out != 2 || s.ValidDrops != 0 {
			t.Errorf("%s: calls %+v, results %+v, drops %+v", s.Target, s.Calls, s.Results, s.Drops)
		}
		if !s.Request.OK {
			t.Errorf("%s: request %v", s.Target, s.Request.Violations)
		}
	}
	if code != exitOK {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestAuditContextWindow: per target, the audit gives the tokens against
// the model's window, and what the fit trimmed and dropped when the
// history is over it (a job whose options name a small window); a job that
// fits shows its own count.
func TestAuditContextWindow(t *testing.T) {
	dir := t.TempDir()
	history := sessiongen.RealShapes(sessiongen.RealConfig{Seed: 7, Turns: 40}).History()
	job := `{"job_id":"j","tenant":"acme","session_id":"s","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-sonnet-4-5"},` +
		`"options":{"context_window_tokens":8000,"max_output_tokens":1000},"messages":` + string(history) + `}`
	path := filepath.Join(dir, "long.json")
	if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "audit", path, "--json", "--target", "anthropic/anthropic-messages/claude-sonnet-4-5", "--target", "openai/openai-responses/gpt-5")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep audit.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Sessions {
		c := s.Context
		if s.Outcome != audit.OutcomeReady || c == nil || c.Window != 8000 || c.Reserve != 1000 || c.Room != 7000 ||
			!c.Fits || c.TurnsDropped == 0 || c.TokensBefore <= 7000 || c.TokensAfter > 7000 {
			t.Fatalf("%s: %s %+v", s.Target, s.Outcome, c)
		}
	}
	code, stdout, _ = runCLI(t, "", "audit", path, "--target", "openai/openai-responses/gpt-5")
	if code != exitOK || !strings.Contains(stdout, "TOKENS") || !strings.Contains(stdout, "/7000\n") ||
		!strings.Contains(stdout, "reserved > 8000: ") || !strings.Contains(stdout, "turns (") {
		t.Fatalf("table: %s", stdout)
	}
	small := strings.Replace(job, `"context_window_tokens":8000,`, ``, 1)
	if err := os.WriteFile(path, []byte(small), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runCLI(t, "", "audit", path, "--json")
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != exitOK {
		t.Fatal(code, err)
	}
	if c := rep.Sessions[0].Context; c == nil || c.Mode != "" || !c.Fits || c.Window != 200_000 || c.TokensAfter != c.TokensBefore || c.TokensAfter == 0 {
		t.Fatalf("fits as it is: %+v", c)
	}
}

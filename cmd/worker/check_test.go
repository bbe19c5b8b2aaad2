package main

import (
	"encoding/json"
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
	if code != exitUsage || !strings.HasPrefix(out, want+"tokens: ") || !strings.Contains(errOut, "(4 violations: first_turn 1, text_validity 1, tool_call_id 1, tool_pairing 1)") {
		t.Fatalf("exit %d\n%s\nstderr %s", code, out, errOut)
	}
	// The same messages for a passthrough: only the surrogate is a fault.
	code, out, _ = runCLI(t, job, "check", "--target", "acme/acme-chat/x")
	if code != exitUsage || !strings.HasPrefix(out, "messages[1]: lone UTF-16 surrogate \\ud83d [text_validity]\ntokens: ") {
		t.Fatalf("--target: exit %d\n%s", code, out)
	}
}

// TestCheckContextWindow: 150 images are within Anthropic's cap only for a
// model with a context window above 200k tokens.
func TestCheckContextWindow(t *testing.T) {
	img := `{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==","mimeType":"image/png"}`
	msgs := strings.Repeat(`{"role":"user","content":[`+img+`]},`, 150)
	job := `{"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"options":{"context_window_tokens":1000000},"messages":[` + strings.TrimSuffix(msgs, ",") + `]}`
	if code, out, errOut := runCLI(t, job, "check"); code != exitOK || !strings.HasPrefix(out, "ok: anthropic-messages\ntokens: ") {
		t.Fatalf("1M context: exit %d %s%s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, job, "check", "--context-window-tokens", "200000"); code != exitUsage || !strings.HasPrefix(out, "messages: 150 images > 100 per request [images_per_request]\ntokens: ") {
		t.Fatalf("200k context: exit %d %s", code, out)
	}
}

// TestCheckTokens: the context window is the last rule, counted by the
// target's tokenizer with the job's system prompt and tools and the output
// reserved; the tokens line says the figures either way.
func TestCheckTokens(t *testing.T) {
	job := `{"target":{"provider":"openai","api":"openai-completions","model":"gpt-4.1"},"options":{"max_output_tokens":200,"system":"You are terse."},"messages":[` +
		`{"role":"user","content":"` + strings.Repeat("hello world ", 100) + `"}]}`
	// o200k_base: "hello world " x 100 is 200 tokens, the system prompt 4,
	// and OpenAI's framing (internal/tokens) the rest
	code, out, errOut := runCLI(t, job, "check", "--context-window-tokens", "300")
	if code != exitUsage || !strings.Contains(out, " tokens (o200k_base) + 200 reserved for output = ") ||
		!strings.Contains(out, " > the 300-token context window [context_window]\n") ||
		!strings.Contains(out, " of 100 (o200k_base; a 300-token window, 200 reserved for output): over\n") {
		t.Fatalf("over: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, job, "check", "--context-window-tokens", "1000", "--max-output-tokens", "500")
	if code != exitOK || !strings.HasSuffix(out, " of 500 (o200k_base; a 1000-token window, 500 reserved for output): fits\n") {
		t.Fatalf("fits: exit %d\n%s%s", code, out, errOut)
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

// TestCheckRequestBodies: every request example, sanitized, is a payload
// whose messages and body pass the check, and its body alone passes
// `check --format`; the same body ending with the assistant's answer (no
// next) fails the final-turn rule, named with its path.
func TestCheckRequestBodies(t *testing.T) {
	files, err := filepath.Glob("../../examples/request-*.json")
	if err != nil || len(files) != 6 {
		t.Fatalf("want six request examples: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, payload, errOut := runCLI(t, "", "sanitize", f)
			if code != exitOK {
				t.Fatalf("sanitize: exit %d: %s", code, errOut)
			}
			if code, out, errOut := runCLI(t, payload, "check", "-"); code != exitOK {
				t.Fatalf("check of the payload: exit %d\n%s%s", code, out, errOut)
			}
			var p struct {
				Format  string          `json:"request_format"`
				Request json.RawMessage `json:"request"`
				Target  struct {
					Provider, API, Model string
				} `json:"target"`
			}
			if err := json.Unmarshal([]byte(payload), &p); err != nil {
				t.Fatal(err)
			}
			target := p.Target.Provider + "/" + p.Target.API + "/" + p.Target.Model
			if code, out, errOut := runCLI(t, string(p.Request), "check", "--format", p.Format, "--target", target, "-"); code != exitOK || out != "ok: "+p.Format+"\n" {
				t.Fatalf("check --format: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}

// TestCheckBodyFormat: a body's final turn and tool names are checked as
// sent; a payload's body is checked with its messages.
func TestCheckBodyFormat(t *testing.T) {
	body := `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}],"tools":[{"type":"function","function":{"name":"browser.open","parameters":{"type":"object"}}}]}`
	code, out, errOut := runCLI(t, body, "check", "--format", "mistral", "-")
	want := "tools[0].function.name: tool name \"browser.open\" does not match ^[a-zA-Z0-9_-]+$ or is over 64 bytes [tool_name]\n" +
		"messages[1]: the body ends with an assistant turn, which the target refuses: Mistral expects the last role to be user or tool, or assistant with prefix: true (job option continue: true) [final_turn]\n"
	if code != exitUsage || out != want || !strings.Contains(errOut, "unsendable as mistral-chat") {
		t.Fatalf("exit %d\n%s\nstderr %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, body, "check", "--format", "soap", "-"); code != exitUsage || !strings.Contains(errOut, "--format") {
		t.Fatalf("--format soap: exit %d, %s", code, errOut)
	}
	payload := `{"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"messages":[{"role":"user","content":"hi"}],` +
		`"request_format":"anthropic-messages","request":{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"text","text":"yo"}]}]}}`
	code, out, _ = runCLI(t, payload, "check", "-")
	if code != exitUsage || !strings.HasPrefix(out, "request.messages[1]: the body ends with an assistant turn, which model \"claude-opus-4-6\" refuses") {
		t.Fatalf("payload: exit %d\n%s", code, out)
	}
}

// TestCheckJobFinalTurn: a job asking for a request body without next is
// judged as the renderer will judge its final turn; with next it is not.
func TestCheckJobFinalTurn(t *testing.T) {
	job := `{"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"options":{"render":"request"},"messages":[` +
		`{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]}]}`
	code, out, _ := runCLI(t, job, "check", "-")
	if code != exitUsage || !strings.HasPrefix(out, `messages[1]: the history ends with an assistant turn, which model "claude-opus-4-6"`) || !strings.Contains(out, "[final_turn]\n") {
		t.Fatalf("without next: exit %d\n%s", code, out)
	}
	withNext := strings.Replace(job, `"render":"request"`, `"render":"request","next":[{"role":"user","content":"and?"}]`, 1)
	if code, out, errOut := runCLI(t, withNext, "check", "-"); code != exitOK {
		t.Fatalf("with next: exit %d\n%s%s", code, out, errOut)
	}
	messagesMode := strings.Replace(job, `"render":"request"`, `"render":"messages"`, 1)
	if code, out, errOut := runCLI(t, messagesMode, "check", "-"); code != exitOK {
		t.Fatalf("messages mode: exit %d\n%s%s", code, out, errOut)
	}
}

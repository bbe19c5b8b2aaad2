package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages"
)

// finalTurnJob is a request-mode job of target with extra options, whose
// history ends with the assistant's answer (with a trailing newline).
func finalTurnJob(target, options string) []byte {
	return []byte(`{"job_id":"j1","tenant":"acme","session_id":"s1","target":` + target +
		`,"options":{"now_ms":1776001060000,"render":"request"` + options + `},"messages":[` +
		`{"role":"user","content":"What does go.mod pin?","timestamp":1776001000000},` +
		`{"role":"assistant","content":[{"type":"text","text":"go1.26.10\n"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"stop","timestamp":1776001001000}]}`)
}

// TestProcessFinalTurn: without next, a history that ends with the
// assistant's turn is judged by the target model's prefill rule; with next
// the body ends with the runner's turn, sanitized with the history.
func TestProcessFinalTurn(t *testing.T) {
	const (
		opus46   = `{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"}`
		sonnet37 = `{"provider":"anthropic","api":"anthropic-messages","model":"claude-3-7-sonnet-20250219"}`
		bedrock  = `{"provider":"amazon-bedrock","api":"bedrock-converse-stream","model":"us.anthropic.claude-sonnet-4-6-v1:0"}`
		mistral  = `{"provider":"mistral","api":"mistral-conversations","model":"mistral-large-latest"}`
		next     = `,"next":[{"role":"user","content":[{"type":"text","text":"And the language version?"},{"type":"text","text":"  "}],"timestamp":1776001002000}]`
	)
	cases := []struct {
		name, target, options string
		code                  string // dead letter, or "" for a ready payload
		body                  []string
	}{
		{"opus 4.6 without next", opus46, "", "unsendable", []string{`claude-opus-4-6`, `prefill`, `options.next`}},
		{"bedrock sonnet 4.6 without next", bedrock, "", "unsendable", []string{`us.anthropic.claude-sonnet-4-6-v1:0`, `options.next`}},
		{"mistral without continue", mistral, "", "unsendable", []string{`mistral-large-latest`, `prefix: true`, `options.next`}},
		{"mistral continue", mistral, `,"continue":true`, "", []string{`"content":"go1.26.10\n","prefix":true}]`}},
		{"claude 3.7 prefill trimmed", sonnet37, "", "", []string{`{"role":"assistant","content":[{"type":"text","text":"go1.26.10"}]}]`}},
		{"opus 4.6 with next", opus46, next, "", []string{`{"role":"user","content":[{"type":"text","text":"And the language version?"}]}]`}},
		{"next and continue", mistral, next + `,"continue":true`, "invalid_job", []string{`options.continue`}},
		{"next of assistant", opus46, `,"next":[{"role":"assistant","content":"x"}]`, "invalid_job", []string{`options.next[0].role`}},
		{"next not messages", opus46, `,"next":{"role":"user"}`, "invalid_job", []string{`options.next`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := process(t, finalTurnJob(tc.target, tc.options), nil, stages.Default(nil)...)
			got := string(out.Payload)
			if tc.code != "" {
				if out.Ready || string(out.Code) != tc.code {
					t.Fatalf("got %+v, want %s", out, tc.code)
				}
				got = out.Error
			} else if !out.Ready {
				t.Fatalf("dead letter: %s %s", out.Code, out.Error)
			}
			for _, want := range tc.body {
				if !strings.Contains(got, want) {
					t.Errorf("%q not in %s", want, got)
				}
			}
		})
	}
}

// TestProcessNextInMessages: the next turns are the last messages of the
// payload too, and a messages-mode job ending with the assistant's turn is
// not judged (the runner appends the next turn).
func TestProcessNextInMessages(t *testing.T) {
	job := strings.Replace(string(finalTurnJob(`{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"}`, "")),
		`"render":"request"`, `"render":"messages"`, 1)
	if out := process(t, []byte(job), nil, stages.Default(nil)...); !out.Ready {
		t.Fatalf("messages mode: %s %s", out.Code, out.Error)
	}
	job = strings.Replace(job, `"render":"messages"`, `"next":[{"role":"user","content":"thanks","timestamp":1776001002000}]`, 1)
	out := process(t, []byte(job), nil, stages.Default(nil)...)
	var payload struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(out.Payload, &payload); err != nil || !out.Ready {
		t.Fatalf("%v %+v", err, out)
	}
	if n := len(payload.Messages); n != 3 || payload.Messages[2]["content"] != "thanks" {
		t.Fatalf("messages = %v", payload.Messages)
	}
}

// TestProcessToolNames: a tool name the target refuses is renamed alike in
// the messages, the body's history and its tools, and the payload maps it
// back (tool_names).
func TestProcessToolNames(t *testing.T) {
	job := `{"job_id":"j1","tenant":"acme","session_id":"s1","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},` +
		`"options":{"now_ms":1776001060000,"render":"request","tools":[{"name":"browser.open","input_schema":{"type":"object"}}],"next":[{"role":"user","content":"and now?","timestamp":1776001003000}]},"messages":[` +
		`{"role":"user","content":"open go.dev","timestamp":1776001000000},` +
		`{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01XFDUDYJgAACzvnptvVoYEL","name":"browser.open","arguments":{"url":"https://go.dev"}}],"api":"google-generative-ai","provider":"google","model":"gemini-2.5-pro","stopReason":"toolUse","timestamp":1776001001000},` +
		`{"role":"toolResult","toolCallId":"toolu_01XFDUDYJgAACzvnptvVoYEL","toolName":"browser.open","content":[{"type":"text","text":"The Go Programming Language"}],"isError":false,"timestamp":1776001002000}]}`
	out := process(t, []byte(job), nil, stages.Default(nil)...)
	if !out.Ready {
		t.Fatalf("dead letter: %s %s", out.Code, out.Error)
	}
	var payload struct {
		ToolNames map[string]string `json:"tool_names"`
		Report    struct {
			Stages map[string]map[string]int `json:"stages"`
		} `json:"report"`
	}
	if err := json.Unmarshal(out.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	body := string(out.Payload)
	if strings.Count(body, `"browser.open"`) != 1 { // the map's value only
		t.Errorf("a refused name is still sent: %s", body)
	}
	if payload.ToolNames["browser_open"] != "browser.open" || payload.Report.Stages["tool_names"]["renamed"] != 1 {
		t.Errorf("tool_names = %v, report = %v", payload.ToolNames, payload.Report.Stages)
	}
	for _, want := range []string{`"name":"browser_open","input":`, `"tools":[{"name":"browser_open"`, `"toolName":"browser_open"`} {
		if !strings.Contains(body, want) {
			t.Errorf("%s not in %s", want, body)
		}
	}
}

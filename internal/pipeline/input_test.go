package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
)

// requestJob is a job that carries an Anthropic Messages body instead of
// messages; target replaces TARGET.
const requestJob = `{"job_id":"j1","tenant":"acme","session_id":"s1","target":TARGET,"options":{"source":"anthropic/anthropic-messages/claude-opus-4-6"},` +
	`"request_format":"anthropic","request":{"model":"claude-opus-4-6","max_tokens":1024,"system":"Be brief.",` +
	`"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]},` +
	`{"role":"assistant","content":[{"type":"text","text":"yo"},{"type":"tool_use","id":"toolu_01u8jzPde0IgxLd6GncfBAep","name":"read","input":{"path":"a.go"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01u8jzPde0IgxLd6GncfBAep","content":"package a"}]}],` +
	`"tools":[{"name":"read","input_schema":{"type":"object"}}]}}`

// TestProcessRequestJob: a request job is parsed into messages (the
// source on its assistant turns), renders a request by default with the
// body's system prompt and tools, and its payload names input_format; what
// the target cannot carry is counted under parse_request.
func TestProcessRequestJob(t *testing.T) {
	for _, c := range []struct {
		target, format string
		dropped        float64
	}{
		{`{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"}`, "anthropic-messages", 0},
		{`{"provider":"google","api":"google-generative-ai","model":"gemini-2.5-pro"}`, "gemini-generate-content", 1},
	} {
		out := process(t, []byte(strings.Replace(requestJob, "TARGET", c.target, 1)), nil)
		if !out.Ready {
			t.Fatalf("dead letter: %+v", out)
		}
		var payload struct {
			InputFormat   string           `json:"input_format"`
			Messages      []map[string]any `json:"messages"`
			RequestFormat string           `json:"request_format"`
			Request       json.RawMessage  `json:"request"`
			Report        struct {
				Stages map[string]map[string]float64 `json:"stages"`
			} `json:"report"`
		}
		if err := json.Unmarshal(out.Payload, &payload); err != nil {
			t.Fatal(err)
		}
		if payload.InputFormat != "anthropic-messages" || payload.RequestFormat != c.format || len(payload.Messages) != 3 {
			t.Fatalf("payload = %s", out.Payload)
		}
		if m := payload.Messages[1]; m["model"] != "claude-opus-4-6" || m["provider"] != "anthropic" || m["api"] != "anthropic-messages" {
			t.Errorf("assistant turn without the source: %v", m)
		}
		req := string(payload.Request)
		if !strings.Contains(req, "Be brief.") || !strings.Contains(req, `"read"`) {
			t.Errorf("request without the body's system prompt or tools: %s", req)
		}
		if got := payload.Report.Stages[StageParse]["dropped_cache_control"]; got != c.dropped {
			t.Errorf("%s: dropped_cache_control = %v, want %v", c.format, got, c.dropped)
		}
		if keeps := strings.Contains(req, "cache_control"); keeps != (c.dropped == 0) {
			t.Errorf("%s: cache_control in the request = %v", c.format, keeps)
		}
	}
}

// TestProcessRefusesBadRequestJobs: messages and a request together, one of
// request_format and request alone, an unknown format, a body that does not
// parse and a bad source are invalid_job dead letters naming the field.
func TestProcessRefusesBadRequestJobs(t *testing.T) {
	anthropic := `{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"}`
	job := strings.Replace(requestJob, "TARGET", anthropic, 1)
	for name, c := range map[string]struct{ job, want string }{
		"both":       {strings.Replace(job, `"request_format"`, `"messages":[],"request_format"`, 1), "not both"},
		"no format":  {strings.Replace(job, `"request_format":"anthropic",`, "", 1), "request_format"},
		"no body":    {job[:strings.Index(job, `,"request":`)] + "}", "required with request_format"},
		"format":     {strings.Replace(job, `"request_format":"anthropic"`, `"request_format":"cohere"`, 1), `"cohere" is not one of`},
		"body":       {strings.Replace(job, `"messages":[`, `"messagez":[`, 1), "request.messages is missing"},
		"not object": {job[:strings.Index(job, `"request":`)] + `"request":[]}`, "a JSON object"},
		"source":     {strings.Replace(job, `"source":"anthropic/anthropic-messages/claude-opus-4-6"`, `"source":"anthropic"`, 1), "options.source"},
	} {
		out := process(t, []byte(c.job), nil)
		if out.Ready || out.Code != "invalid_job" || !strings.Contains(out.Error, c.want) {
			t.Errorf("%s: %+v, want invalid_job naming %q", name, out, c.want)
		}
	}
}

// TestProcessRequestJobKeepsPrefill: a Mistral body whose last message is
// the assistant's prefill (prefix: true, as vercel/ai's Mistral provider
// writes it) is ready, its request ending with that turn marked prefix:
// true; at 0988e1e the flag was not read and the job was the unsendable
// dead letter for ending with the assistant's turn.
func TestProcessRequestJobKeepsPrefill(t *testing.T) {
	job := `{"job_id":"j1","tenant":"acme","session_id":"s1","target":{"provider":"mistral","api":"mistral-conversations","model":"mistral-medium-latest"},` +
		`"request_format":"mistral-chat","request":{"model":"mistral-medium-latest","messages":[{"role":"user","content":"Write a haiku about rain."},` +
		`{"role":"assistant","content":"Soft rain on the roof","prefix":true}]}}`
	out := process(t, []byte(job), nil)
	if !out.Ready {
		t.Fatalf("dead letter: %+v", out)
	}
	var payload struct {
		Request struct {
			Messages []map[string]any `json:"messages"`
		} `json:"request"`
	}
	if err := json.Unmarshal(out.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	msgs := payload.Request.Messages
	if len(msgs) != 2 || msgs[1]["role"] != "assistant" || msgs[1]["prefix"] != true {
		t.Errorf("request messages = %v, want the prefill last with prefix: true", msgs)
	}
}

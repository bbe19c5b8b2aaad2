package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// largeTarget is the large suite's target: OpenAI Chat Completions, whose
// contract documents no request-size cap, so that a history over Anthropic's
// 32 MB cap runs the whole chain instead of being refused by request_size.
var largeTarget = transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}

// largeDamaged is the large suite's damaged job of about n messages: short
// texts, no images, the generator's realistic damage, and tool-call ids of
// the real lengths and alphabets (Config.RealLengthIDs: Chat Completions'
// call_ + 24 base62, the Responses form call_<24>|fc_<50 hex> among the
// bad ids).
func largeDamaged(o options, n int) []byte {
	gcfg := generatorConfig(o)
	gcfg.Messages, gcfg.Images, gcfg.TextChars, gcfg.ToolResultChars = n, 0, 60, 120
	gcfg.Target, gcfg.Damage, gcfg.RealLengthIDs = largeTarget, sessiongen.Realistic(), true
	_, job := sessiongen.New(gcfg).Job(0)
	return job
}

// readyPayload is the part of a ready payload the large suite reads: the
// sanitized messages, the entries the runner is asked to persist, and the
// report.
type readyPayload struct {
	JobID         string            `json:"job_id"`
	Tenant        string            `json:"tenant"`
	SessionID     string            `json:"session_id"`
	Target        json.RawMessage   `json:"target"`
	Messages      []json.RawMessage `json:"messages"`
	AppendEntries json.RawMessage   `json:"append_entries"`
	Report        struct {
		Changed bool                      `json:"changed"`
		Stages  map[string]map[string]int `json:"stages"`
	} `json:"report"`
}

// parsePayload reads a ready payload.
func parsePayload(payload []byte) (readyPayload, error) {
	var p readyPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return p, fmt.Errorf("the ready payload is not JSON of the expected shape: %w", err)
	}
	return p, nil
}

// repairs is what the report says the chain changed, "" when nothing: the
// stage counts that are not zero.
func (p readyPayload) repairs() string {
	var s string
	for stageName, counts := range p.Report.Stages {
		for what, n := range counts {
			if n != 0 {
				s += fmt.Sprintf(" %s.%s=%d", stageName, what, n)
			}
		}
	}
	if s == "" && p.Report.Changed {
		s = " changed"
	}
	return s
}

// cleanJob is the clean history the large suite measures beside the
// damaged one: the worker's own ready payload fed back as the session's
// next job, as a runner would send it. Its messages are the payload's, its
// custom_entries the entries the payload asked the runner to persist (the
// model snapshot), and its options those of the job the payload answered
// (now_ms), so nothing is left to repair; yet every byte is decoded,
// checked and written again, as for most production histories (issue 22).
// It returns the job and its message count.
func cleanJob(payload []byte, options json.RawMessage) ([]byte, int, error) {
	p, err := parsePayload(payload)
	if err != nil {
		return nil, 0, err
	}
	entries := p.AppendEntries
	if len(entries) == 0 || string(entries) == "null" {
		entries = json.RawMessage("[]")
	}
	head, err := json.Marshal(cleanEnvelope{JobID: p.JobID + "-clean", Tenant: p.Tenant, SessionID: p.SessionID,
		Target: p.Target, Options: options, CustomEntries: entries})
	if err != nil {
		return nil, 0, err
	}
	size := len(head) + len(`,"messages":[]`)
	for _, m := range p.Messages {
		size += len(m) + 1
	}
	job := make([]byte, 0, size)
	job = append(job, head[:len(head)-1]...) // without its closing brace
	job = append(job, `,"messages":[`...)
	for i, m := range p.Messages {
		if i > 0 {
			job = append(job, ',')
		}
		job = append(job, m...)
	}
	job = append(job, "]}"...)
	return job, len(p.Messages), nil
}

// cleanEnvelope is a clean job's fields before its messages.
type cleanEnvelope struct {
	JobID         string          `json:"job_id"`
	Tenant        string          `json:"tenant"`
	SessionID     string          `json:"session_id"`
	Target        json.RawMessage `json:"target"`
	Options       json.RawMessage `json:"options,omitempty"`
	CustomEntries json.RawMessage `json:"custom_entries"`
}

// jobOptions is the options object of a job (nil when it has none), read
// without decoding the members after it: the generator writes messages
// last, so a large job's messages are never parsed.
func jobOptions(job []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(job))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("the job is not a JSON object: %v", err)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("reading the job's keys: %w", err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("reading the job's %v: %w", key, err)
		}
		if key == "options" {
			return v, nil
		}
	}
	return nil, nil
}

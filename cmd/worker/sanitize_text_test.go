package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestSanitizeRepairsInvalidText: a job whose tool printed bytes that are
// not UTF-8, and whose text holds a cut emoji, is a ready payload, not an
// invalid_json dead letter (issue 16), and the payload is valid UTF-8 JSON
// that says what it repaired.
func TestSanitizeRepairsInvalidText(t *testing.T) {
	job := `{"job_id":"j","tenant":"acme","session_id":"s","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"options":{"now_ms":5},"messages":[` +
		`{"role":"user","content":"cut \ud83d emoji"},` +
		`{"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"read","arguments":{}}],"stopReason":"toolUse"},` +
		"{\"role\":\"toolResult\",\"toolCallId\":\"toolu_1\",\"toolName\":\"read\",\"content\":[{\"type\":\"text\",\"text\":\"bin \xff\xfe\"}]}," +
		`{"role":"user","content":"next"}]}`
	code, out, errOut := runCLI(t, job, "sanitize", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !utf8.ValidString(out) || !json.Valid([]byte(out)) || bytes.Contains([]byte(out), []byte(`\ud83d"`)) {
		t.Fatalf("payload is not valid text: %q", out)
	}
	var payload struct {
		Report struct {
			Stages map[string]map[string]int `json:"stages"`
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(out), &payload); err != nil {
		t.Fatal(err)
	}
	if got := payload.Report.Stages["text_repair"]["repaired"]; got != 3 {
		t.Fatalf("text_repair.repaired = %d, want 3 (report %v)", got, payload.Report.Stages)
	}
}

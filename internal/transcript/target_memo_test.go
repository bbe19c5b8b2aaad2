package transcript

import (
	"strings"
	"testing"
)

// TestDecodeTargetAfterAnother: a job's target is its own whatever the
// target of the job decoded before it (decodeTarget keeps the last one's
// bytes): the same target, another, the same one spelt with other white
// space or an escape, and one that is refused, each against
// encoding/json's decode of it.
func TestDecodeTargetAfterAnother(t *testing.T) {
	targets := []string{
		`{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"}`,
		`{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"}`,
		`{"provider":"openai","api":"openai-responses","model":"gpt-5"}`,
		`{"provider": "anthropic", "api": "anthropic-messages", "model": "claude-opus-4-6"}`,
		`{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-5"}`,
		`{"provider":"anthropic","api":"anthropic-messages","model":"claude\u002dopus-4-6"}`,
		`{"provider":"openai","api":"openai-responses","model":"gpt-5"}`,
		`{"provider":"openai","api":"openai-responses","modle":"gpt-5"}`,
		`{"provider":"openai","api":"openai-responses","model":"gpt-5"}`,
	}
	for i, raw := range targets {
		job := `{"job_id":"j","tenant":"t","session_id":"s","target":` + raw + `,"messages":[]}`
		tr, err := DecodeJob([]byte(job), Limits{})
		var want Target
		wantErr := strictUnmarshal([]byte(raw), &want, "target", "")
		if (err != nil) != (wantErr != nil) || (err != nil && !strings.Contains(err.Error(), "modle")) {
			t.Fatalf("target %d %s: error %v, encoding/json %v", i, raw, err, wantErr)
		}
		if err == nil && tr.Target != want {
			t.Fatalf("target %d %s: %+v, encoding/json %+v", i, raw, tr.Target, want)
		}
	}
}

package replay

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// bodiesSession is a session logged as its successive Anthropic request
// bodies (the second carries the whole history), with a torn line.
const bodiesSession = `{"model":"claude-opus-4-6","messages":[{"role":"user","content":"Read a.go"}]}
{"model":"claude-opus-4-6","messages":[{"role":"user","content":"Read a.go"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01u8jzPde0IgxLd6GncfBAep","name":"read","input":{"path":"a.go"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01u8jzPde0IgxLd6GncfBAep","content":"package a"}]}]}
{"model":"claude-opus-4-6","messages":[{"role":
`

// TestReplayRequestBodies: with From, a file's last body is its session,
// parsed and sanitized by the pipeline for the target; the torn line is
// counted as a repaired line; a file of no body fails as invalid_job.
func TestReplayRequestBodies(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(in, "a.jsonl"), bodiesSession)
	writeFile(t, filepath.Join(in, "empty.jsonl"), "not a body\n")
	proc := pipeline.NewProcessor(config.Default().Limits, pipeline.ResolverFor(config.Default()), pipeline.Deps{})
	o := opts(in, out)
	o.Process, o.From = proc.Sanitize, "anthropic-messages"
	o.Target = &transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}
	sum, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Delivered != 1 || sum.RepairedLines != 1 || sum.DeadLetters["invalid_job"] != 1 {
		t.Fatalf("summary %+v", sum)
	}
	raw, err := os.ReadFile(filepath.Join(out, "a.ready.json"))
	if err != nil {
		t.Fatal(err)
	}
	var payload struct {
		InputFormat   string            `json:"input_format"`
		RequestFormat string            `json:"request_format"`
		Messages      []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	if payload.InputFormat != "anthropic-messages" || payload.RequestFormat != "openai-chat-completions" || len(payload.Messages) != 3 {
		t.Fatalf("payload %s", raw)
	}
}

// TestEncodeJobOfRequestBodies: in job mode (--to-kafka) a request session
// is written as a request job, which decodes again.
func TestEncodeJobOfRequestBodies(t *testing.T) {
	tr, err := decodeBodies([]byte(bodiesSession), "a.jsonl", "anthropic-messages", transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}, transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tr.Tenant = "offline"
	job := tr.EncodeJob(nil)
	back, err := transcript.DecodeJob(job, transcript.Limits{})
	if err != nil {
		t.Fatalf("%v: %s", err, job)
	}
	if back.Input == nil || back.Input.Format != "anthropic-messages" || len(back.Input.Body) != len(tr.Input.Body) {
		t.Fatalf("decoded %+v", back.Input)
	}
}

package audit

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/pipeline/pipelinetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// documentJob is a request job whose Anthropic body attaches a PDF, an
// image by URL and a PDF by Files API id, with a cache breakpoint.
const documentJob = `{"job_id":"docs","tenant":"acme","session_id":"agent:main:telegram:42","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},` +
	`"request_format":"anthropic-messages","request":{"model":"claude-opus-4-6","max_tokens":1024,"messages":[{"role":"user","content":[` +
	`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQKJSVFT0YK"},"title":"Q3 report"},` +
	`{"type":"image","source":{"type":"url","url":"https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"}},` +
	`{"type":"document","source":{"type":"file","file_id":"file_011CNvxoj286tYUAZFiZMf1U"}},` +
	`{"type":"text","text":"Compare them.","cache_control":{"type":"ephemeral"}}]}]}}`

// TestAuditNamesPartsByKind: `worker audit` names every part that did not
// reach the target as it was, by kind: on its own target the job loses
// nothing; on Bedrock the URL image and the file id become placeholders
// and the cache breakpoint is dropped.
func TestAuditNamesPartsByKind(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "docs.json")
	writeFile(t, path, documentJob)
	proc, _ := pipelinetest.Processor(t, config.Default())
	bedrock := transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-7-sonnet-20250219-v1:0"}
	rep, err := Run(context.Background(), Options{
		Inputs: []string{path}, Read: os.ReadFile, DecodeJob: proc.DecodeJob, Process: proc.Sanitize, Concurrency: 1,
		Targets: []transcript.Target{{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}, bedrock},
	})
	if err != nil {
		t.Fatal(err)
	}
	own, other := rep.Sessions[0], rep.Sessions[1]
	if own.Outcome != OutcomeReady || len(own.Parts) != 0 {
		t.Errorf("own target: %s %s, parts %v, want ready and nothing lost", own.Outcome, own.Reason, own.Parts)
	}
	want := map[string]PartCount{"image_url": {Replaced: 1}, "file_id": {Replaced: 1}, "cache_control": {Dropped: 1}}
	if other.Outcome != OutcomeReady || len(other.Parts) != len(want) {
		t.Fatalf("bedrock: %s, parts %v, want %v", other.Outcome, other.Parts, want)
	}
	for k, c := range want {
		if other.Parts[k] != c {
			t.Errorf("bedrock: parts %v, want %v", other.Parts, want)
		}
	}
	if rep.Totals.PartsByKind["image_url"].Replaced != 1 {
		t.Errorf("totals %v", rep.Totals.PartsByKind)
	}
	var out bytes.Buffer
	if err := WriteTable(&out, rep); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"parts not sent as they were: cache_control dropped 1, file_id replaced 1, image_url replaced 1", "parts [cache_control dropped 1, file_id replaced 1, image_url replaced 1]"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the table lacks %q:\n%s", s, out.String())
		}
	}
}

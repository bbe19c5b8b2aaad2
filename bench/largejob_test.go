package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/pipeline/pipelinetest"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

var (
	// chatID is a Chat Completions tool-call id as OpenAI writes it.
	chatID = regexp.MustCompile(`^call_[A-Za-z0-9]{24}$`)
	// storedResponsesID is a Responses call id in pi-ai's stored form.
	storedResponsesID = regexp.MustCompile(`^call_[A-Za-z0-9]{24}\|fc_[0-9a-f]{50}$`)
	// strictChatID is a Chat id in the chain's strict form for the target
	// (non-alphanumerics removed).
	strictChatID = regexp.MustCompile(`^call[A-Za-z0-9]{24}$`)
	// strictID is any id the chain sends the target: alphanumerics only, at
	// most 40, or a Kimi-style functions.<name>:<n> id, which it keeps.
	strictID = regexp.MustCompile(`^([A-Za-z0-9]{1,40}|functions\.[A-Za-z0-9_]+:[0-9]+)$`)
)

// TestLargeShapesRealIDs: the large suite's damaged history carries tool-call
// ids of the real shapes (Chat's call_ + 24 base62, the Responses form among
// the bad ids), and its clean history, the chain's payload fed back, carries
// the same ids in the target's strict form and has nothing left to repair:
// the default chain's report says unchanged, with no stage count, and every
// message comes back byte-identical.
func TestLargeShapesRealIDs(t *testing.T) {
	o, err := parseOptions(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	proc, _ := pipelinetest.Processor(t, config.Default())
	damaged := largeDamaged(o, 2000)
	ids := toolIDs(t, damaged)
	chat, responses := 0, 0
	stripped := map[string]bool{} // the strict form of each Chat id
	for _, id := range ids {
		switch {
		case chatID.MatchString(id):
			chat++
			stripped[strings.Replace(id, "_", "", 1)] = true
		case storedResponsesID.MatchString(id):
			responses++
		case strings.HasPrefix(id, "call_") && !strings.Contains(id, "|") && !strings.Contains(id, "xxxxxxxx"):
			t.Errorf("damaged: well-formed id %q is not call_ + 24 base62", id)
		}
	}
	if len(ids) < 1000 || chat < len(ids)*8/10 || responses == 0 {
		t.Fatalf("damaged: %d ids, %d of Chat's shape, %d of the Responses form; want most of Chat's and some of the other", len(ids), chat, responses)
	}

	first := process(t, proc, damaged)
	if first.repairs() == "" {
		t.Fatal("damaged: the chain repaired nothing")
	}
	options, err := jobOptions(damaged)
	if err != nil || !bytes.Contains(options, []byte("now_ms")) {
		t.Fatalf("jobOptions = %s, %v; want the generator's now_ms", options, err)
	}
	payload, err := json.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	clean, n, err := cleanJob(payload, options)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(first.Messages) {
		t.Fatalf("cleanJob counted %d messages, the payload has %d", n, len(first.Messages))
	}
	ids = toolIDs(t, clean)
	strictChat := 0
	for _, id := range ids {
		if !strictID.MatchString(id) {
			t.Errorf("clean: id %q is not in the strict form", id)
		}
		if strictChatID.MatchString(id) {
			strictChat++
			if !stripped[id] {
				t.Errorf("clean: id %q is not the strict form of a damaged history's Chat id", id)
			}
		}
	}
	if len(ids) < 1000 || strictChat < len(ids)*8/10 {
		t.Fatalf("clean: %d ids, %d of them call + 24 base62", len(ids), strictChat)
	}

	again := process(t, proc, clean)
	if again.Report.Changed || again.repairs() != "" {
		t.Fatalf("clean: the chain changed it:%s (changed %v)", again.repairs(), again.Report.Changed)
	}
	if len(again.Messages) != n {
		t.Fatalf("clean: %d messages in, %d out", n, len(again.Messages))
	}
	for i := range again.Messages {
		if !bytes.Equal(again.Messages[i], first.Messages[i]) {
			t.Fatalf("clean: message %d changed:\n%s\n%s", i, first.Messages[i], again.Messages[i])
		}
	}
}

// process runs one job through proc and reads its ready payload.
func process(t *testing.T, proc *pipeline.Processor, job []byte) readyPayload {
	t.Helper()
	out, err := proc.Process(context.Background(), transport.Record{Value: job, Topic: "bench"})
	if err != nil || !out.Ready {
		t.Fatalf("not ready: %v %s %s", err, out.Code, out.Error)
	}
	p, err := parsePayload(out.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// toolIDs lists a job's tool-call ids and tool results' ids, in order.
func toolIDs(t *testing.T, job []byte) []string {
	t.Helper()
	var j struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID *string         `json:"toolCallId"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(job, &j); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range j.Messages {
		if m.ToolCallID != nil {
			ids = append(ids, *m.ToolCallID)
		}
		var blocks []struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if m.Role == "assistant" && json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "toolCall" {
					ids = append(ids, b.ID)
				}
			}
		}
	}
	return ids
}

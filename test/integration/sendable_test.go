package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// emptyingJob is a job whose repair leaves nothing to send: an orphan tool
// result (no call) and a failed, empty assistant turn.
func emptyingJob(id string) []byte {
	return fmt.Appendf(nil, `{"job_id":%q,"tenant":"acme","session_id":"s-empty",`+
		`"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"options":{"now_ms":1776000905000},"messages":[`+
		`{"role":"toolResult","toolCallId":"ghost_1","toolName":"read","content":[{"type":"text","text":"orphan"}],"timestamp":1776000900000},`+
		`{"role":"assistant","content":[],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"error","timestamp":1776000901000}]}`, id)
}

// renamedToolJob calls a tool whose name Anthropic refuses: the tool_names
// rule renames it on the wire (issue 21) and the payload maps it back.
func renamedToolJob(id string) []byte {
	return fmt.Appendf(nil, `{"job_id":%q,"tenant":"acme","session_id":"s-name",`+
		`"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"options":{"now_ms":1776000905000},"messages":[`+
		`{"role":"user","content":"read it","timestamp":1776000900000},`+
		`{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01Hb4WqZr8NcV2xKt6LmPs9D","name":"mcp.fs.read","arguments":{}}],"stopReason":"toolUse","timestamp":1776000901000},`+
		`{"role":"toolResult","toolCallId":"toolu_01Hb4WqZr8NcV2xKt6LmPs9D","toolName":"mcp.fs.read","content":[{"type":"text","text":"ok"}],"timestamp":1776000902000}]}`, id)
}

// prefillJob asks for the request body (render: request) of a history that
// ends with the assistant's answer, without options.next, for a model that
// refuses prefill: no rule can make it sendable (issue 21).
func prefillJob(id string) []byte {
	return fmt.Appendf(nil, `{"job_id":%q,"tenant":"acme","session_id":"s-prefill",`+
		`"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"options":{"now_ms":1776000905000,"render":"request"},"messages":[`+
		`{"role":"user","content":"hi","timestamp":1776000900000},`+
		`{"role":"assistant","content":[{"type":"text","text":"Hello."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"stop","timestamp":1776000901000}]}`, id)
}

// TestNothingLeftToSend: a job that empties out arrives on the DLQ with
// empty_history and a sentence saying what the repair removed, and the next
// job of the same key comes out ready; a job no rule can make sendable (a
// request body that would end with the assistant's turn on a model that
// refuses prefill) is a dead letter unsendable naming the model and the
// option that fixes it; a tool name the target refuses is renamed, not a
// dead letter, and the payload carries the map back.
func TestNothingLeftToSend(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b broker) {
		tp := newTopics(t, b)
		out := collect(t, b, tp)
		w := startWorker(t, "worker", workerEnv(b, tp))
		prod := newProducer(t, b, tp.jobs)
		err := prod.write(context.Background(),
			transport.Record{Key: []byte("acme/s-empty"), Value: emptyingJob("empties")},
			transport.Record{Key: []byte("acme/s-empty"), Value: jobValue("after-empty", "acme", "s-empty")},
			transport.Record{Key: []byte("acme/s-prefill"), Value: prefillJob("prefill")},
			transport.Record{Key: []byte("acme/s-prefill"), Value: jobValue("after-prefill", "acme", "s-prefill")},
			transport.Record{Key: []byte("acme/s-name"), Value: renamedToolJob("renamed")})
		if err != nil {
			t.Fatal(err)
		}
		out.waitAll(t, []string{"after-empty", "after-prefill", "renamed"}, time.Minute)
		deadline := time.Now().Add(30 * time.Second)
		for len(out.deadLetters()) < 2 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		want := map[string]struct{ code, stage, says string }{
			"acme/s-empty":   {"empty_history", "empty_history", "messages: nothing left to send: the repair removed all 2 input messages; the rules changed: "},
			"acme/s-prefill": {"unsendable", pipeline.StageRender, `the history ends with an assistant turn, which model "claude-opus-4-6" (anthropic-messages) refuses`},
		}
		dls := out.deadLetters()
		if len(dls) != 2 {
			t.Fatalf("%d dead letters, want 2", len(dls))
		}
		for _, d := range dls {
			w, ok := want[string(d.Key)]
			code, _ := d.Header(deadletter.HeaderErrorCode)
			sentence, _ := d.Header(deadletter.HeaderError)
			stage, _ := d.Header(deadletter.HeaderStage)
			if !ok || string(code) != w.code || string(stage) != w.stage || !strings.HasPrefix(string(sentence), w.says) {
				t.Errorf("dead letter %s: code %q stage %q error %q; want %+v", d.Key, code, stage, sentence, w)
			}
			t.Logf("%s -> %s: %s", d.Key, code, sentence)
		}
		var renamed struct {
			ToolNames map[string]string `json:"tool_names"`
		}
		if err := json.Unmarshal(out.readyValue("renamed"), &renamed); err != nil {
			t.Fatal(err)
		}
		if len(renamed.ToolNames) != 1 || renamed.ToolNames["mcp_fs_read"] != "mcp.fs.read" {
			t.Errorf("tool_names %v, want mcp_fs_read -> mcp.fs.read", renamed.ToolNames)
		}
		w.stop()
	})
}

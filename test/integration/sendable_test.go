package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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

// unsendableJob calls a tool whose name Anthropic refuses and no rule
// renames (a tool name is the runner's, not ours to change).
func unsendableJob(id string) []byte {
	return fmt.Appendf(nil, `{"job_id":%q,"tenant":"acme","session_id":"s-name",`+
		`"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"options":{"now_ms":1776000905000},"messages":[`+
		`{"role":"user","content":"read it","timestamp":1776000900000},`+
		`{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"mcp.fs.read","arguments":{}}],"stopReason":"toolUse","timestamp":1776000901000},`+
		`{"role":"toolResult","toolCallId":"toolu_01","toolName":"mcp.fs.read","content":[{"type":"text","text":"ok"}],"timestamp":1776000902000}]}`, id)
}

// TestNothingLeftToSend: a job that empties out arrives on the DLQ with
// empty_history and a sentence saying what the repair removed, and the next
// job of the same key comes out ready; a job the target's contract refuses
// is a dead letter unsendable naming the violation's path, counted by rule
// in hygiene_contract_violations_total.
func TestNothingLeftToSend(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b broker) {
		tp := newTopics(t, b)
		out := collect(t, b, tp)
		w := startWorker(t, "worker", workerEnv(b, tp))
		prod := newProducer(t, b, tp.jobs)
		err := prod.write(context.Background(),
			transport.Record{Key: []byte("acme/s-empty"), Value: emptyingJob("empties")},
			transport.Record{Key: []byte("acme/s-empty"), Value: jobValue("after-empty", "acme", "s-empty")},
			transport.Record{Key: []byte("acme/s-name"), Value: unsendableJob("bad-name")},
			transport.Record{Key: []byte("acme/s-name"), Value: jobValue("after-name", "acme", "s-name")})
		if err != nil {
			t.Fatal(err)
		}
		out.waitAll(t, []string{"after-empty", "after-name"}, time.Minute)
		deadline := time.Now().Add(30 * time.Second)
		for len(out.deadLetters()) < 2 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		want := map[string]struct{ code, stage, says string }{
			"acme/s-empty": {"empty_history", "empty_history", "messages: nothing left to send: the repair removed all 2 input messages; the rules changed: "},
			"acme/s-name":  {"unsendable", "contract", `messages[1].content[0]: tool name "mcp.fs.read" does not match ^[a-zA-Z0-9_-]+$`},
		}
		dls := out.deadLetters()
		if len(dls) != 2 {
			t.Fatalf("%d dead letters, want 2", len(dls))
		}
		for _, d := range dls {
			w, ok := want[string(d.Key)]
			code, _ := d.Header(pipeline.HeaderErrorCode)
			sentence, _ := d.Header(pipeline.HeaderError)
			stage, _ := d.Header(pipeline.HeaderStage)
			if !ok || string(code) != w.code || string(stage) != w.stage || !strings.HasPrefix(string(sentence), w.says) {
				t.Errorf("dead letter %s: code %q stage %q error %q; want %+v", d.Key, code, stage, sentence, w)
			}
			t.Logf("%s -> %s: %s", d.Key, code, sentence)
		}
		families := scrape(t, w.metrics+"/metrics")
		var names float64
		for _, m := range families["hygiene_contract_violations_total"].GetMetric() {
			if m.GetLabel()[0].GetValue() == "tool_name" {
				names = m.GetCounter().GetValue()
			}
		}
		if names != 1 {
			t.Errorf(`hygiene_contract_violations_total{rule="tool_name"} = %v, want 1`, names)
		}
		w.stop()
	})
}

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReplayToKafka archives session files, produces them as jobs with
// `worker replay --to-kafka`, and checks that a running worker turns every
// one into a ready payload: the offline path and the Kafka path meet.
func TestReplayToKafka(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b broker) {
		tp := newTopics(t, b)
		out := collect(t, b, tp)
		env := workerEnv(b, tp)
		w := startWorker(t, "w", env)
		defer w.stop()

		dir := t.TempDir()
		var ids []string
		for i := range 12 {
			id := fmt.Sprintf("%s-replay-%d", tp.group, i)
			ids = append(ids, id)
			session := strings.Join([]string{
				fmt.Sprintf(`{"type":"session","id":%q}`, id),
				`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"what changed?","timestamp":1776000000000}}`,
				`{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"call|1","name":"read","arguments":{}}],"provider":"google","api":"google-generative-ai","model":"gemini-2.5-pro","stopReason":"toolUse","timestamp":1776000001000}}`,
				`{not json`,
			}, "\n") + "\n"
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", i)), []byte(session), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(workerBin, "replay", dir, "--to-kafka", "--checkpoint", filepath.Join(t.TempDir(), "cp.jsonl"))
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "HYGIENE_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, env...)
		summary, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("worker replay --to-kafka: %v\n%s", err, summary)
		}
		if !strings.Contains(string(summary), "12 delivered (jobs produced to Kafka)") || !strings.Contains(string(summary), "12 malformed lines dropped in 12 sessions") {
			t.Fatalf("summary:\n%s", summary)
		}
		out.waitAll(t, ids, 2*time.Minute)
		out.mu.Lock()
		defer out.mu.Unlock()
		for _, id := range ids {
			if out.ready[id] == 0 {
				t.Fatalf("session %s came back as a dead letter, not a ready payload", id)
			}
		}
	})
}

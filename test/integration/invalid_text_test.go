package integration

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// TestInvalidTextIsRepairedNotDeadLettered: a job whose tool printed bytes
// that are not UTF-8 and whose text holds a lone surrogate comes out ready
// (its text repaired), not as an invalid_json dead letter that would lose
// the whole session (issue 16).
func TestInvalidTextIsRepairedNotDeadLettered(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b broker) {
		tp := newTopics(t, b)
		out := collect(t, b, tp)
		startWorker(t, "worker", workerEnv(b, tp))
		prod := newProducer(t, b, tp.jobs)
		job := jobValue("invalid-text", "acme", "s1")
		job = bytes.Replace(job, []byte("question invalid-text"), []byte("question \\ud83d cut, then \xff\xfe"), 1)
		if err := prod.write(context.Background(), transport.Record{Key: []byte("acme/s1"), Value: job}); err != nil {
			t.Fatal(err)
		}
		out.waitAll(t, []string{"invalid-text"}, time.Minute)
		out.mu.Lock()
		ready, dead := out.ready["invalid-text"], out.dead["invalid-text"]
		out.mu.Unlock()
		if ready != 1 || dead != 0 {
			t.Fatalf("ready %d, dead letters %d; want one ready payload", ready, dead)
		}
	})
}

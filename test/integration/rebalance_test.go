package integration

import (
	"testing"
	"time"
)

// TestRebalance runs 2, then 3, then 1 workers in one group while jobs flow
// and checks that no job is left without an output.
func TestRebalance(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b broker) {
		tp := newTopics(t, b)
		out := collect(t, b, tp)
		env := workerEnv(b, tp)
		stream := newProducer(t, b, tp.jobs).stream(t, "rebalance", 600, 6, 120*time.Millisecond)

		w1 := startWorker(t, "w1", env)
		w2 := startWorker(t, "w2", env)
		time.Sleep(4 * time.Second)
		w3 := startWorker(t, "w3", env) // 2 -> 3
		time.Sleep(4 * time.Second)
		w1.stop() // 3 -> 1, graceful: each leaves the group after its drain
		w2.stop()
		ids := <-stream
		out.waitAll(t, ids, 2*time.Minute)
		if !w3.alive() {
			t.Fatal("the last worker exited")
		}
		w3.stop()
		t.Logf("%d jobs through 2, 3, then 1 workers; %d duplicate outputs", len(ids), out.duplicates(ids))
	})
}

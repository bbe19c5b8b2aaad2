package integration

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestCrashRestart kills the worker with SIGKILL at random points while a
// stream of jobs flows, restarts it, several times, and then checks that
// every job has an output and that duplicates stay under the in-flight cap
// for each crash.
func TestCrashRestart(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b broker) {
		const (
			jobs        = 600
			kills       = 3
			maxInflight = 64
		)
		seed := uint64(time.Now().UnixNano())
		rng := rand.New(rand.NewPCG(seed, 1))
		t.Logf("kill points from seed %d", seed)

		tp := newTopics(t, b)
		out := collect(t, b, tp)
		env := workerEnv(b, tp, "HYGIENE_PIPELINE_MAX_INFLIGHT_JOBS=64", "HYGIENE_KAFKA_MAX_INFLIGHT_PER_PARTITION=32")
		stream := newProducer(t, b, tp.jobs).stream(t, "crash", jobs, 6, 150*time.Millisecond)

		for i := range kills {
			w := startWorker(t, "crashing", env)
			up := time.Duration(1000+rng.IntN(3000)) * time.Millisecond
			time.Sleep(up)
			w.kill()
			t.Logf("kill %d: SIGKILL after %s up", i+1, up)
		}
		w := startWorker(t, "final", env)
		ids := <-stream
		out.waitAll(t, ids, 3*time.Minute)
		w.stop()

		dups := out.duplicates(ids)
		t.Logf("%d jobs, %d kills, %d duplicate outputs", len(ids), kills, dups)
		if dups > kills*maxInflight {
			t.Errorf("%d duplicates after %d crashes; the in-flight cap of %d bounds them to %d", dups, kills, maxInflight, kills*maxInflight)
		}
	})
}

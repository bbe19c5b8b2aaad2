package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// The cluster faults run against the 3-node KRaft cluster of
// `scripts/kafka.sh cluster 3`, whose bootstrap list KAFKA_CLUSTER_BROKERS
// names; the tests drive its nodes with the same script (kill, pause,
// resume, restart). Topics get the brokers' replication 3 and
// min.insync.replicas 2, and the worker's producer writes with acks=all.

// clusterInflight caps each worker's jobs read and not yet acknowledged:
// the most a fault can make a worker repeat.
const clusterInflight = 32

// realCluster returns the cluster of KAFKA_CLUSTER_BROKERS; without it the
// test is skipped, unless CI=true: then it fails.
func realCluster(t *testing.T) broker {
	t.Helper()
	if v := os.Getenv("KAFKA_CLUSTER_BROKERS"); v != "" {
		return broker{name: "cluster", addr: v}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("KAFKA_CLUSTER_BROKERS is not set; with CI=true the cluster tests need export KAFKA_CLUSTER_BROKERS=$(scripts/kafka.sh cluster 3)")
	}
	t.Skip("KAFKA_CLUSTER_BROKERS is not set; export KAFKA_CLUSTER_BROKERS=$(scripts/kafka.sh cluster 3) to run the cluster faults")
	return broker{}
}

// kafkaSh runs scripts/kafka.sh with args and returns its stdout.
func kafkaSh(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("../../scripts/kafka.sh", args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/kafka.sh %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// leaders returns the leader node of each partition of topic.
func leaders(t *testing.T, b broker, topic string) map[int]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := adminClient(t, b).Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, tm := range resp.Topics {
		for _, p := range tm.Partitions {
			out[p.ID] = p.Leader.ID
		}
	}
	return out
}

// busiestLeader is the node leading the most partitions of topic (all of
// them carry the same load), and those partitions.
func busiestLeader(t *testing.T, b broker, topic string) (int, []int) {
	t.Helper()
	by := map[int][]int{}
	for p, node := range leaders(t, b, topic) {
		by[node] = append(by[node], p)
	}
	best := 0
	for node, ps := range by {
		if len(ps) > len(by[best]) || len(ps) == len(by[best]) && node < best {
			best = node
		}
	}
	return best, by[best]
}

// coordinator is the node that coordinates group.
func coordinator(t *testing.T, b broker, group string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := adminClient(t, b).FindCoordinator(ctx, &kafkago.FindCoordinatorRequest{Key: group, KeyType: kafkago.CoordinatorKeyTypeConsumer})
	if err != nil || resp.Error != nil {
		t.Fatalf("finding the coordinator of group %s: %v %v", group, err, resp)
	}
	return resp.Coordinator.NodeID
}

// activeController reads the KRaft quorum leader from a running node's
// quorum-state file.
func activeController(t *testing.T) int {
	t.Helper()
	files, _ := filepath.Glob("../../.kafka/cluster/node*/data/__cluster_metadata-0/quorum-state")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var st struct {
			LeaderID int `json:"leaderId"`
		}
		if json.Unmarshal(data, &st) == nil && st.LeaderID > 0 {
			return st.LeaderID
		}
	}
	t.Fatal("no node's quorum-state names the active controller")
	return 0
}

// fullyReplicated waits until every partition of topics has 3 in-sync replicas.
func fullyReplicated(t *testing.T, b broker, topics ...string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := adminClient(t, b).Metadata(ctx, &kafkago.MetadataRequest{Topics: topics})
		cancel()
		short := 0
		if err != nil {
			short = -1
		} else {
			for _, tm := range resp.Topics {
				for _, p := range tm.Partitions {
					if len(p.Isr) < 3 {
						short++
					}
				}
			}
		}
		if short == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("partitions still under-replicated after 3 minutes (%d short, err %v)", short, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// readiness polls the workers' /readyz during a fault and counts the
// answers: 200, 503, and anything else (an error, another status).
type readiness struct {
	mu     sync.Mutex
	counts map[string]int
	stop   chan struct{}
	done   chan struct{}
}

func watchReadiness(ws ...*workerProc) *readiness {
	r := &readiness{counts: map[string]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	client := &http.Client{Timeout: 2 * time.Second}
	go func() {
		defer close(r.done)
		for {
			for _, w := range ws {
				kind := "other"
				if res, err := client.Get(w.metrics + "/readyz"); err == nil {
					res.Body.Close()
					switch res.StatusCode {
					case http.StatusOK:
						kind = "200"
					case http.StatusServiceUnavailable:
						kind = "503"
					}
				}
				r.mu.Lock()
				r.counts[kind]++
				r.mu.Unlock()
			}
			select {
			case <-r.stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return r
}

func (r *readiness) end() map[string]int {
	close(r.stop)
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts
}

// TestClusterFaults runs two workers on an 8-partition topic of the 3-node
// cluster under a steady stream of jobs (the manifest is the ids
// produced) and injects one fault per subtest. Each checks: every job has
// an output (0 lost); duplicates at most the jobs the two workers can hold
// in flight, per node fault (a rolling restart is three); /readyz answered 200 or 503 throughout (never an error) and
// both workers are ready after it; neither worker was restarted; every
// output byte-identical to its job's first.
func TestClusterFaults(t *testing.T) {
	b := realCluster(t)
	for _, f := range []struct {
		name string
		run  func(t *testing.T, tp topics) (string, int)
	}{
		{"kill-leader", func(t *testing.T, tp topics) (string, int) {
			node, parts := busiestLeader(t, b, tp.jobs)
			killFor(t, node, 10*time.Second)
			return fmt.Sprintf("node %d (leader of partitions %v) killed for 10s, then restarted", node, parts), 1
		}},
		{"pause-leader", func(t *testing.T, tp topics) (string, int) {
			node, parts := busiestLeader(t, b, tp.jobs)
			kafkaSh(t, "pause", fmt.Sprint(node))
			time.Sleep(20 * time.Second)
			kafkaSh(t, "resume", fmt.Sprint(node))
			return fmt.Sprintf("node %d (leader of partitions %v) paused for 20s", node, parts), 1
		}},
		{"pause-coordinator", func(t *testing.T, tp topics) (string, int) {
			// The group's coordinator away: the workers' commits fail while
			// they go on working, and once it is back both are evicted and
			// join again with new member ids, each claiming its partitions
			// (the cluster keeps the broker's 3 s initial rebalance delay, so
			// the group forms with both; see scripts/kafka.sh).
			node := coordinator(t, b, tp.group)
			kafkaSh(t, "pause", fmt.Sprint(node))
			time.Sleep(20 * time.Second)
			kafkaSh(t, "resume", fmt.Sprint(node))
			return fmt.Sprintf("node %d (the group's coordinator) paused for 20s", node), 1
		}},
		{"kill-controller", func(t *testing.T, tp topics) (string, int) {
			node := activeController(t)
			killFor(t, node, 10*time.Second)
			return fmt.Sprintf("node %d (the active controller) killed for 10s, then restarted", node), 1
		}},
		{"rolling-restart", func(t *testing.T, tp topics) (string, int) {
			for node := 1; node <= 3; node++ {
				fullyReplicated(t, b, tp.jobs, tp.ready, "__consumer_offsets")
				kafkaSh(t, "restart", fmt.Sprint(node))
			}
			return "nodes 1, 2, 3 restarted in turn, each once the previous was back in sync", 3
		}},
	} {
		t.Run(f.name, func(t *testing.T) { clusterFault(t, b, f.run) })
	}
}

// killFor kills node with SIGKILL, waits d and starts it again.
func killFor(t *testing.T, node int, d time.Duration) {
	t.Helper()
	kafkaSh(t, "kill", fmt.Sprint(node))
	time.Sleep(d)
	kafkaSh(t, "restart", fmt.Sprint(node))
}

func clusterFault(t *testing.T, b broker, fault func(t *testing.T, tp topics) (string, int)) {
	const partitions, jobs = 8, 1500
	fullyReplicated(t, b, "__consumer_offsets")
	tp := newTopicsOf(t, b, partitions, 1<<20)
	out := collect(t, b, tp)
	env := workerEnv(b, tp, "HYGIENE_KAFKA_COMMIT_INTERVAL=500ms", fmt.Sprintf("HYGIENE_PIPELINE_MAX_INFLIGHT_JOBS=%d", clusterInflight))
	w1, w2 := startWorker(t, "w1", env), startWorker(t, "w2", env)
	waitReady(t, w1)
	waitReady(t, w2)
	start := time.Now()
	stream := newProducer(t, b, tp.jobs).stream(t, "fault", jobs, 10, 100*time.Millisecond)
	time.Sleep(5 * time.Second) // the workers are busy before the fault
	ready := watchReadiness(w1, w2)
	what, events := fault(t, tp)
	ids := <-stream
	out.waitAll(t, ids, 4*time.Minute)
	answers := ready.end()
	elapsed := time.Since(start)

	for _, w := range []*workerProc{w1, w2} {
		if !w.alive() {
			t.Fatalf("worker %s exited during the fault:\n%s", w.name, w.logTail())
		}
		waitReady(t, w)
	}
	dups, differ := out.duplicates(ids), out.differing()
	t.Logf("%s: %d jobs in %s, 0 lost, %d duplicates, %d outputs differing from their first; /readyz answers %v",
		what, len(ids), elapsed.Round(time.Second), dups, differ, answers)
	if limit := events * 2 * clusterInflight; dups > limit {
		t.Errorf("%d duplicates through %d node faults; want at most the %d jobs two workers hold in flight, per fault (%d)", dups, events, 2*clusterInflight, limit)
	}
	if differ > 0 {
		t.Errorf("%d outputs are not byte-identical to their job's first output", differ)
	}
	if answers["other"] > 0 {
		t.Errorf("/readyz failed to answer 200 or 503 %d times during the fault", answers["other"])
	}
	w1.stop()
	w2.stop()
}

// TestProbesWhileTheClusterIsPaused: a worker started while every node of
// the cluster is paused (SIGSTOP: connections are accepted, nothing is
// answered) serves /healthz 200 and /readyz 503 naming what it waits for,
// at once, and does not exit; once the nodes resume it creates its topics,
// joins its group and becomes ready, with no restart. (Before, its health
// port stayed closed while it waited for topic leaders, and the chart's
// liveness probe restarted it.)
func TestProbesWhileTheClusterIsPaused(t *testing.T) {
	b := realCluster(t)
	tp := topicNames(t) // created by the worker once the cluster answers
	for node := 1; node <= 3; node++ {
		kafkaSh(t, "pause", fmt.Sprint(node))
	}
	resumed := false
	resume := func() {
		if !resumed {
			for node := 1; node <= 3; node++ {
				kafkaSh(t, "resume", fmt.Sprint(node))
			}
			resumed = true
		}
	}
	defer resume()
	w := startWorkerUntil(t, "paused", workerEnv(b, tp), "probes and metrics listening")
	for _, probe := range []struct {
		path   string
		status int
		says   string
	}{{"/healthz", http.StatusOK, "ok"}, {"/readyz", http.StatusServiceUnavailable, "waiting for topic leaders"}} {
		status, body := httpGet(t, w.metrics+probe.path)
		if status != probe.status || !strings.Contains(string(body), probe.says) {
			t.Errorf("GET %s while the cluster is paused: %d %q, want %d saying %q", probe.path, status, body, probe.status, probe.says)
		}
	}
	time.Sleep(5 * time.Second) // a liveness probe's period: still alive, still waiting
	select {
	case <-w.exited:
		t.Fatalf("the worker exited while the cluster was paused (%v):\n%s", w.err, w.logTail())
	default:
	}
	if status, _ := httpGet(t, w.metrics+"/healthz"); status != http.StatusOK {
		t.Errorf("/healthz after 5 s of a paused cluster: %d, want 200", status)
	}
	resume()
	waitReady(t, w)
	w.stop()
}

package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// envInt is the integer in the environment variable name, or def. The load
// tests run small by default and at the full size from the bench
// commands in bench/results/HISTORY.md (issue 10).
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q is not a positive integer", name, v)
	}
	return n
}

// distinctJPEG returns jpeg with a comment segment naming tag right after
// its start marker: the same picture, but different bytes, so neither the
// image cache nor anything else can share the work of two copies.
func distinctJPEG(jpeg []byte, tag string) []byte {
	com := []byte{0xff, 0xfe, byte((len(tag) + 2) >> 8), byte(len(tag) + 2)}
	out := make([]byte, 0, len(jpeg)+len(com)+len(tag))
	out = append(out, jpeg[:2]...)
	out = append(out, com...)
	out = append(out, tag...)
	return append(out, jpeg[2:]...)
}

// photo is a w x h JPEG (quality 85) of a gradient under per-pixel noise:
// like a photograph, it does not compress much and takes libvips real work
// to decode (a smooth test gradient shrinks on load almost for free).
func photo(w, h int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := func(base int) uint8 { return uint8(max(0, min(255, base+int(rng.IntN(81))-40))) }
			img.SetRGBA(x, y, color.RGBA{R: n(255 * x / w), G: n(255 * y / h), B: n((x + y) % 256), A: 255})
		}
	}
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
	return buf.Bytes()
}

// bigProducer is a producer for records of up to 16 MiB.
func bigProducer(t *testing.T, b broker, topic string) *producer {
	t.Helper()
	sink, err := kafka.NewSink(kafka.SinkConfig{Config: kafka.Config{Brokers: b.brokers()}, Topic: topic,
		MaxMessageBytes: 16 << 20, CompressAbove: -1, BatchTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sink.Close(context.Background()) })
	return &producer{sink: sink}
}

// imageJobValue is a job whose user turn asks about the given JPEGs.
func imageJobValue(id, tenant, session string, jpegs ...[]byte) []byte {
	var blocks strings.Builder
	for _, j := range jpegs {
		fmt.Fprintf(&blocks, `{"type":"image","mimeType":"image/jpeg","data":%q},`, base64.StdEncoding.EncodeToString(j))
	}
	return fmt.Appendf(nil, `{"job_id":%q,"tenant":%q,"session_id":%q,`+
		`"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},`+
		`"options":{"now_ms":1776000905000},"messages":[`+
		`{"role":"user","content":[%s{"type":"text","text":"what is in these pictures? (%s)"}],"timestamp":1776000900000},`+
		`{"role":"assistant","content":[{"type":"text","text":"answer %s"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"stop","timestamp":1776000901000}]}`,
		id, tenant, session, blocks.String(), id, id)
}

// backlog builds n jobs over 5 tenants and 40 sessions, a share of them
// (imagePercent %) with one distinct 1920x1080 JPEG.
func backlog(prefix string, n, imagePercent int) ([]transport.Record, []string) {
	picture := photo(1920, 1080, 1)
	recs := make([]transport.Record, n)
	ids := make([]string, n)
	for i := range n {
		rec, id := jobRecord(prefix, i)
		if i%100 < imagePercent {
			tenant, session, _ := strings.Cut(string(rec.Key), "/")
			rec.Value = imageJobValue(id, tenant, session, distinctJPEG(picture, id))
		}
		recs[i], ids[i] = rec, id
	}
	return recs, ids
}

// produceAll writes recs in batches of 50.
func produceAll(t *testing.T, p *producer, recs []transport.Record) {
	t.Helper()
	for i := 0; i < len(recs); i += 50 {
		if err := p.write(context.Background(), recs[i:min(i+50, len(recs))]...); err != nil {
			t.Fatalf("producing the backlog: %v", err)
		}
	}
}

// adminClient is a kafka-go Client of b whose connections close when t ends.
func adminClient(t *testing.T, b broker) *kafkago.Client {
	tr := &kafkago.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &kafkago.Client{Addr: kafkago.TCP(b.brokers()...), Timeout: 10 * time.Second, Transport: tr}
}

// newTopicsOf is newTopics with partitions partitions and topics that take
// records of up to maxMessageBytes.
func newTopicsOf(t *testing.T, b broker, partitions, maxMessageBytes int) topics {
	t.Helper()
	tp := topicNames(t)
	client := adminClient(t, b)
	req := &kafkago.CreateTopicsRequest{}
	for _, name := range []string{tp.jobs, tp.ready, tp.dlq} {
		req.Topics = append(req.Topics, kafkago.TopicConfig{Topic: name, NumPartitions: partitions, ReplicationFactor: -1,
			ConfigEntries: []kafkago.ConfigEntry{{ConfigName: "max.message.bytes", ConfigValue: strconv.Itoa(maxMessageBytes)}}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := client.CreateTopics(ctx, req)
	if err != nil {
		t.Fatalf("creating topics: %v", err)
	}
	for name, err := range resp.Errors {
		if err != nil {
			t.Fatalf("creating topic %s: %v", name, err)
		}
	}
	t.Cleanup(func() { // they can hold gigabytes of images on the shared broker
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = client.DeleteTopics(ctx, &kafkago.DeleteTopicsRequest{Topics: []string{tp.jobs, tp.ready, tp.dlq}})
	})
	// EnsureTopics on existing topics only waits for their leaders.
	if err := kafka.EnsureTopics(ctx, b.brokers(), []string{tp.jobs, tp.ready, tp.dlq}, partitions); err != nil {
		t.Fatal(err)
	}
	return tp
}

// commitWatch polls a group's committed offsets per partition and records
// how long each partition went without its commit moving while it still
// had records to commit.
type commitWatch struct {
	mu      sync.Mutex
	stalls  map[int]time.Duration // longest wait for an advance, per partition
	began   map[int]time.Duration // when that wait began, after the watch started
	moves   map[int][]commitMove  // every observed change of each partition's commit
	ended   time.Time             // when stop was called
	cancel  context.CancelFunc
	stopped chan struct{}
}

// commitMove is one observed change of a partition's committed offset.
type commitMove struct {
	at   time.Time
	done bool // the partition's records were all committed with it
}

// watchCommits starts polling group's offsets of topic, whose partitions
// end at ends (the backlog is all produced), from now.
func watchCommits(t *testing.T, b broker, topic, group string, ends map[int]int64) *commitWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &commitWatch{stalls: map[int]time.Duration{}, began: map[int]time.Duration{}, moves: map[int][]commitMove{}, cancel: cancel, stopped: make(chan struct{})}
	client := adminClient(t, b)
	parts := make([]int, 0, len(ends))
	for p := range ends {
		parts = append(parts, p)
	}
	go func() {
		defer close(w.stopped)
		last := map[int]int64{}
		since := map[int]time.Time{}
		start := time.Now()
		for ctx.Err() == nil {
			resp, err := client.OffsetFetch(ctx, &kafkago.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: parts}})
			now := time.Now()
			if err == nil {
				for _, p := range resp.Topics[topic] {
					off, done := p.CommittedOffset, p.CommittedOffset >= ends[p.Partition]
					if _, seen := since[p.Partition]; !seen {
						since[p.Partition], last[p.Partition] = start, -1
					}
					if off != last[p.Partition] {
						last[p.Partition], since[p.Partition] = off, now
						w.mu.Lock()
						w.moves[p.Partition] = append(w.moves[p.Partition], commitMove{at: now, done: done})
						w.mu.Unlock()
					}
					if !done {
						w.mu.Lock()
						if d := now.Sub(since[p.Partition]); d > w.stalls[p.Partition] {
							w.stalls[p.Partition], w.began[p.Partition] = d, since[p.Partition].Sub(start)
						}
						w.mu.Unlock()
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(w.stop)
	return w
}

// after returns the longest time, over the partitions that still had
// records to commit at moment, from moment to their commit's next move,
// and that partition.
func (w *commitWatch) after(moment time.Time) (time.Duration, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var worst time.Duration
	part := -1
	for p, moves := range w.moves {
		if slices.ContainsFunc(moves, func(m commitMove) bool { return m.done && m.at.Before(moment) }) {
			continue // all committed before moment
		}
		next := w.ended // no move after moment: it stood still until the watch stopped
		if i := slices.IndexFunc(moves, func(m commitMove) bool { return m.at.After(moment) }); i >= 0 {
			next = moves[i].at
		}
		if d := next.Sub(moment); d > worst {
			worst, part = d, p
		}
	}
	return worst, part
}

func (w *commitWatch) stop() {
	w.cancel()
	<-w.stopped
	w.mu.Lock()
	if w.ended.IsZero() {
		w.ended = time.Now()
	}
	w.mu.Unlock()
}

// longest returns the longest stall of any partition, the partition, and
// when the stall began (since the watch started).
func (w *commitWatch) longest() (time.Duration, int, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var worst time.Duration
	part := -1
	for p, d := range w.stalls {
		if d > worst {
			worst, part = d, p
		}
	}
	return worst, part, w.began[part]
}

// endOffsets returns the end offset of each partition of topic.
func endOffsets(t *testing.T, b broker, topic string, partitions int) map[int]int64 {
	t.Helper()
	client := adminClient(t, b)
	var reqs []kafkago.OffsetRequest
	for p := range partitions {
		reqs = append(reqs, kafkago.LastOffsetOf(p))
	}
	resp, err := client.ListOffsets(context.Background(), &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{topic: reqs}})
	if err != nil {
		t.Fatal(err)
	}
	ends := map[int]int64{}
	for _, p := range resp.Topics[topic] {
		if p.Error != nil {
			t.Fatal(p.Error)
		}
		ends[p.Partition] = p.LastOffset
	}
	return ends
}

// waitOutputs waits until at least n of ids have an output.
func (o *outputs) waitOutputs(t *testing.T, ids []string, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		o.mu.Lock()
		done := len(ids) - len(o.missingLocked(ids))
		changed := o.changed
		o.mu.Unlock()
		if done >= n {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("only %d of %d jobs have an output after %s, want %d", done, len(ids), timeout, n)
		}
	}
}

// slowestJob is the upper bound of the highest bucket of w's
// hygiene_job_duration_seconds that holds a job (0 before the first).
func slowestJob(t *testing.T, w *workerProc) time.Duration {
	t.Helper()
	f, ok := scrape(t, w.metrics+"/metrics")["hygiene_job_duration_seconds"]
	if !ok || len(f.GetMetric()) == 0 {
		return 0
	}
	h := f.GetMetric()[0].GetHistogram()
	if h.GetSampleCount() == 0 {
		return 0
	}
	for _, bk := range h.GetBucket() { // ascending: the first that holds every job holds the slowest
		if bk.GetCumulativeCount() == h.GetSampleCount() {
			return time.Duration(bk.GetUpperBound() * float64(time.Second))
		}
	}
	return time.Duration(h.GetSampleSum() * float64(time.Second)) // above the last bucket: at most the sum
}

// gauge scrapes one gauge of a worker, 0 when it is not there.
func gauge(t *testing.T, w *workerProc, name string) float64 {
	t.Helper()
	f, ok := scrape(t, w.metrics+"/metrics")[name]
	if !ok || len(f.GetMetric()) == 0 {
		return 0
	}
	return f.GetMetric()[0].GetGauge().GetValue()
}

// waitReady waits until the worker's /readyz passes.
func waitReady(t *testing.T, w *workerProc) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		if status, _ := httpGet(t, w.metrics+"/readyz"); status == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker %s is not ready after 90s:\n%s", w.name, w.logTail())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRebalanceWithBacklog: N jobs (40% with a 1920x1080 JPEG) are on an
// 8-partition topic before the first worker starts; a second worker joins
// while the backlog is worked off and later leaves with SIGTERM. Nothing is
// lost, duplicates stay under 5% of N (the jobs in progress on the moved
// partitions at the two rebalances), and every partition's committed offset
// advances while it has work, within 2 x commit_interval + the slowest job
// in flight (the upper bound of the highest bucket of the workers'
// hygiene_job_duration_seconds that holds a job): a partition a worker
// receives after a join or a leave is committed as soon as its first job is
// done. HYGIENE_IT_BACKLOG_JOBS sets N (default 300; the figures in
// bench/results/HISTORY.md are for 1000).
func TestRebalanceWithBacklog(t *testing.T) {
	b := broker{name: "kafka", addr: realKafka(t)}
	n := envInt(t, "HYGIENE_IT_BACKLOG_JOBS", 300)
	const partitions = 8
	tp := newTopicsOf(t, b, partitions, 16<<20)
	recs, ids := backlog("backlog", n, 40)
	produceAll(t, bigProducer(t, b, tp.jobs), recs)
	ends := endOffsets(t, b, tp.jobs, partitions)
	out := collect(t, b, tp)
	const commitInterval = 500 * time.Millisecond
	// The worker's default rebalance timeout: the pause at a generation's end
	// used to wait up to half of it for started jobs.
	env := workerEnv(b, tp, "HYGIENE_KAFKA_COMMIT_INTERVAL="+commitInterval.String(), "HYGIENE_KAFKA_REBALANCE_TIMEOUT=30s")

	start := time.Now()
	w1 := startWorker(t, "w1", env)
	waitReady(t, w1) // the watch starts with the first generation: the worker's start-up is no rebalance
	watch, watched := watchCommits(t, b, tp.jobs, tp.group, ends), time.Since(start)
	out.waitOutputs(t, ids, n/10, 3*time.Minute)
	w2 := startWorker(t, "w2", env) // 1 -> 2: w1 loses half of the partitions
	waitReady(t, w2)
	joined := time.Since(start)
	out.waitOutputs(t, ids, n/2, 3*time.Minute)
	slowest := slowestJob(t, w2)
	w2.stop() // 2 -> 1, must exit 0 after its drain
	leftAt := time.Now()
	left := leftAt.Sub(start)
	out.waitAll(t, ids, 5*time.Minute)
	elapsed := time.Since(start)
	watch.stop()
	slowest = max(slowest, slowestJob(t, w1))
	w1.stop()

	dups := out.duplicates(ids)
	stall, part, began := watch.longest()
	gap, gapPart := watch.after(leftAt)
	t.Logf("%d jobs (40%% with a 1920x1080 JPEG), w2 joined at %s and left at %s, all done at %s: %d duplicates (%.1f%%); longest commit stall %s (partition %d, from %s); after the leave the last partition with work moved its commit in %s (partition %d); slowest job at most %s",
		n, joined.Round(time.Second), left.Round(time.Second), elapsed.Round(time.Second), dups, 100*float64(dups)/float64(n),
		stall.Round(100*time.Millisecond), part, (watched + began).Round(100*time.Millisecond), gap.Round(100*time.Millisecond), gapPart, slowest)
	if dups*20 > n {
		t.Errorf("%d duplicates for %d jobs through one join and one leave; want under 5%%", dups, n)
	}
	// Before the sticky hand-off the pause at every generation's end waited
	// for all started jobs, and partitions stood still for 13-15 s.
	bound := 2*commitInterval + slowest
	if stall > bound {
		t.Errorf("partition %d's committed offset stood still for %s while it had work; want at most 2 x commit_interval + the slowest job (%s) = %s",
			part, stall.Round(100*time.Millisecond), slowest, bound)
	}
	if gap > bound {
		t.Errorf("after the leave partition %d's committed offset took %s to move; want at most %s", gapPart, gap.Round(100*time.Millisecond), bound)
	}
}

// TestDrainWithFullBudget: with the in-flight budget full of a backlog,
// SIGTERM ends the worker within its shutdown deadline with status 0 (jobs
// not started are released at once), and the next worker delivers the rest.
// HYGIENE_IT_DRAIN_JOBS and HYGIENE_IT_DRAIN_BUDGET set the backlog and the
// in-flight job budget (defaults 300 and 128).
func TestDrainWithFullBudget(t *testing.T) {
	b := broker{name: "kafka", addr: realKafka(t)}
	n := envInt(t, "HYGIENE_IT_DRAIN_JOBS", 300)
	tp := newTopicsOf(t, b, 4, 16<<20)
	recs, ids := backlog("drain", n, 40)
	produceAll(t, bigProducer(t, b, tp.jobs), recs)
	out := collect(t, b, tp)
	budget := envInt(t, "HYGIENE_IT_DRAIN_BUDGET", 128)
	env := workerEnv(b, tp, "HYGIENE_PIPELINE_MAX_INFLIGHT_JOBS="+strconv.Itoa(budget))

	w1 := startWorker(t, "w1", env)
	deadline := time.Now().Add(2 * time.Minute)
	for gauge(t, w1, "hygiene_inflight_jobs") < float64(budget-1) {
		if time.Now().After(deadline) {
			t.Fatalf("the in-flight budget of %d did not fill within 2 minutes", budget)
		}
		time.Sleep(100 * time.Millisecond)
	}
	inflight := gauge(t, w1, "hygiene_inflight_jobs")
	sigterm := time.Now()
	w1.stop() // fails unless the exit status is 0
	drained := time.Since(sigterm)
	if drained > 15*time.Second { // HYGIENE_PIPELINE_SHUTDOWN_TIMEOUT in workerEnv
		t.Errorf("the worker took %s after SIGTERM, longer than its 15s shutdown deadline", drained)
	}
	before := len(ids) - len(out.missing(ids))
	w2 := startWorker(t, "w2", env)
	out.waitAll(t, ids, 5*time.Minute)
	w2.stop()
	t.Logf("SIGTERM with %v jobs in flight (budget %d): exit 0 after %s; %d of %d jobs were done, the next worker did the rest; %d duplicates",
		inflight, budget, drained.Round(10*time.Millisecond), before, n, out.duplicates(ids))
}

// missing returns the ids without an output yet.
func (o *outputs) missing(ids []string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.missingLocked(ids)
}

// scrapeQuiet is scrape without failing a test (nil on any error).
func scrapeQuiet(url string) map[string]*dto.MetricFamily {
	resp, err := http.Get(url)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil
	}
	return families
}

// vmHWM reads the peak resident set size of process pid (VmHWM, bytes).
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// TestImageOverloadStaysInsideTheMemoryLimit: one worker with
// memory.limit_bytes = 1 GiB and the default bounds works off jobs of three
// distinct 3000x2000 JPEGs each; its peak RSS stays within the limit + 15%
// and every job has an output. HYGIENE_IT_OVERLOAD_JOBS sets the job count
// (default 100, where the cache leak fixed with this test reached 1.2 GiB; the figure in bench/results/HISTORY.md is for 600).
func TestImageOverloadStaysInsideTheMemoryLimit(t *testing.T) {
	b := broker{name: "kafka", addr: realKafka(t)}
	n := envInt(t, "HYGIENE_IT_OVERLOAD_JOBS", 100)
	const limit = 1 << 30
	tp := newTopicsOf(t, b, 4, 16<<20)
	pictures := [][]byte{photo(3000, 2000, 1), photo(3000, 2000, 2), photo(3000, 2000, 3)}
	prod := bigProducer(t, b, tp.jobs)
	var ids []string
	for i := range n {
		rec, id := jobRecord("overload", i)
		tenant, session, _ := strings.Cut(string(rec.Key), "/")
		rec.Value = imageJobValue(id, tenant, session,
			distinctJPEG(pictures[0], id), distinctJPEG(pictures[1], id), distinctJPEG(pictures[2], id))
		if err := prod.write(context.Background(), rec); err != nil {
			t.Fatalf("producing job %d: %v", i, err)
		}
		ids = append(ids, id)
	}
	out := collect(t, b, tp)
	w := startWorker(t, "worker", workerEnv(b, tp, "HYGIENE_MEMORY_LIMIT_BYTES="+strconv.Itoa(limit),
		"HYGIENE_KAFKA_MAX_MESSAGE_BYTES="+strconv.Itoa(15<<20)))
	var heapPeak float64
	sampled := make(chan struct{})
	stopSampling := make(chan struct{})
	go func() { // the Go heap's share of the peak, from /metrics
		defer close(sampled)
		for {
			select {
			case <-stopSampling:
				return
			case <-time.After(250 * time.Millisecond):
			}
			if f, ok := scrapeQuiet(w.metrics + "/metrics")["hygiene_heap_inuse_bytes"]; ok && len(f.GetMetric()) > 0 {
				heapPeak = max(heapPeak, f.GetMetric()[0].GetGauge().GetValue())
			}
		}
	}()
	out.waitAll(t, ids, 10*time.Minute)
	close(stopSampling)
	<-sampled
	peak := vmHWM(t, w.cmd.Process.Pid)
	w.stop()
	t.Logf("%d jobs of 3 distinct 3000x2000 JPEGs, memory.limit_bytes 1 GiB: peak RSS (VmHWM) %.0f MiB (%.0f%% of the limit), Go heap in use at most %.0f MiB; %d dead letters",
		n, float64(peak)/(1<<20), 100*float64(peak)/limit, heapPeak/(1<<20), len(out.deadLetters()))
	if peak > limit*115/100 {
		t.Errorf("peak RSS %d MiB is over the 1 GiB limit + 15%%", peak>>20)
	}
	if bytes.Contains([]byte(w.logTail()), []byte(`"level":"ERROR"`)) {
		t.Errorf("the worker logged errors:\n%s", w.logTail())
	}
}

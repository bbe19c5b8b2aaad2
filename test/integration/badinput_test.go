package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// badRecord is one malformed record and the dead letter it must become.
type badRecord struct {
	name    string
	value   []byte
	headers []transport.Header
	code    string
}

// badRecords are the malformed inputs of the issue, under the limits that
// workerEnv sets for this test (64 KiB per record as read, 4 MiB decoded).
func badRecords() []badRecord {
	deep := []byte(`{"job_id":"deep","tenant":"bad","session_id":"deep","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"messages":`)
	deep = append(deep, bytes.Repeat([]byte("["), 1_000_000)...)
	deep = append(deep, bytes.Repeat([]byte("]"), 1_000_000)...)
	deep = append(deep, '}')
	zstd := []transport.Header{{Key: compression.HeaderContentEncoding, Value: []byte(compression.EncodingZstd)}}
	return []badRecord{
		{name: "invalid-json", value: []byte(`{"job_id": "broken", "tenant": `), code: "invalid_json"},
		{name: "missing-fields", value: []byte(`{"job_id":"missing"}`), code: "invalid_job"},
		{name: "empty-target", value: []byte(`{"job_id":"notarget","tenant":"bad","session_id":"s","target":{},"messages":[]}`), code: "invalid_target"},
		{name: "corrupt-zstd", value: append([]byte{0x28, 0xb5, 0x2f, 0xfd}, bytes.Repeat([]byte{0xff}, 64)...), headers: zstd, code: "decompression_failed"},
		{name: "zstd-bomb", value: compression.Encode(make([]byte, 256<<20)), headers: zstd, code: "payload_too_large"},
		{name: "oversize", value: bytes.Repeat([]byte(" "), 200<<10), code: "payload_too_large"},
		{name: "nested-1e6", value: compression.Encode(deep), headers: zstd, code: "invalid_json"},
	}
}

// TestBadRecords puts each malformed record on the jobs topic, each followed
// by a good job with the same key (so on the same partition): every bad one
// is a dead letter with its code and a sentence, every good one is ready,
// and the worker stays up. Its metrics are scraped over HTTP and linted.
func TestBadRecords(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b broker) {
		tp := newTopics(t, b)
		out := collect(t, b, tp)
		w := startWorker(t, "worker", workerEnv(b, tp,
			"HYGIENE_LIMITS_MAX_COMPRESSED_BYTES=65536", "HYGIENE_LIMITS_MAX_JOB_BYTES=4194304"))
		prod := newProducer(t, b, tp.jobs)

		bad := badRecords()
		var good []string
		for i, br := range bad {
			key := []byte("bad/" + br.name)
			id := fmt.Sprintf("after-%s", br.name)
			good = append(good, id)
			err := prod.write(context.Background(),
				transport.Record{Key: key, Value: br.value, Headers: br.headers},
				transport.Record{Key: key, Value: jobValue(id, "bad", br.name)})
			if err != nil {
				t.Fatalf("producing bad record %d (%s): %v", i, br.name, err)
			}
		}
		out.waitAll(t, good, time.Minute)
		deadline := time.Now().Add(30 * time.Second)
		for len(out.deadLetters()) < len(bad) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}

		byKey := map[string]transport.Record{}
		for _, d := range out.deadLetters() {
			byKey[string(d.Key)] = d
		}
		for _, br := range bad {
			d, ok := byKey["bad/"+br.name]
			if !ok {
				t.Errorf("%s: no dead letter", br.name)
				continue
			}
			code, _ := d.Header(deadletter.HeaderErrorCode)
			sentence, _ := d.Header(deadletter.HeaderError)
			stage, _ := d.Header(deadletter.HeaderStage)
			source, _ := d.Header(deadletter.HeaderSource)
			if string(code) != br.code {
				t.Errorf("%s: code %q (%s), want %q", br.name, code, sentence, br.code)
			}
			if len(sentence) == 0 || len(stage) == 0 || !strings.HasPrefix(string(source), tp.jobs+"/") {
				t.Errorf("%s: headers error=%q stage=%q source=%q, want all set", br.name, sentence, stage, source)
			}
			if !bytes.Equal(d.Value, br.value) {
				t.Errorf("%s: the dead letter's value (%d bytes) is not the original (%d bytes)", br.name, len(d.Value), len(br.value))
			}
			t.Logf("%s -> %s: %s", br.name, code, sentence)
		}

		for _, path := range []string{"/healthz", "/readyz"} {
			if status, body := httpGet(t, w.metrics+path); status != http.StatusOK {
				t.Errorf("GET %s after the bad records = %d %s", path, status, body)
			}
		}
		families := scrape(t, w.metrics+"/metrics")
		problems, err := testutil.GatherAndLint(prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
			var fs []*dto.MetricFamily
			for _, f := range families {
				fs = append(fs, f)
			}
			return fs, nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("metric lint: %s: %s", p.Metric, p.Text)
		}
		dlq := map[string]float64{}
		for _, m := range families["hygiene_dlq_records_total"].GetMetric() {
			dlq[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
		want := map[string]float64{}
		for _, br := range bad {
			want[br.code]++
		}
		for code, n := range want {
			if dlq[code] < n {
				t.Errorf("hygiene_dlq_records_total{code=%q} = %v, want at least %v", code, dlq[code], n)
			}
		}
		for _, name := range []string{"hygiene_jobs_total", "hygiene_stage_duration_seconds", "hygiene_pool_capacity",
			"hygiene_consumer_lag", "hygiene_partitions_assigned", "hygiene_images_resized_total", "hygiene_inflight_bytes"} {
			if _, ok := families[name]; !ok {
				t.Errorf("/metrics has no %s", name)
			}
		}
		w.stop()
	})
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// scrape fetches a Prometheus text exposition over HTTP and parses it.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	status, body := httpGet(t, url)
	if status != http.StatusOK {
		t.Fatalf("GET %s = %d", url, status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return families
}

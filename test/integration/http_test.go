package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/docs/schemas/schematest"
	"github.com/hygiene-dev/hygiene/internal/httpapi"
	"github.com/hygiene-dev/hygiene/internal/metrics"
)

// sanitizeURL is the POST /v1/sanitize address a worker logged.
func (w *workerProc) sanitizeURL(t *testing.T) string {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, line := range w.tail {
		var entry struct {
			Msg string `json:"msg"`
			URL string `json:"url"`
		}
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "sanitize endpoint started" {
			return entry.URL
		}
	}
	t.Fatalf("worker %s did not log its sanitize endpoint", w.name)
	return ""
}

// A `worker run` with http.listen answers POST /v1/sanitize with the same
// bytes `worker sanitize` prints for the job, and a bad job with its code,
// while the Kafka path keeps working; metrics tell the two sources apart.
func TestSanitizeOverHTTP(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b broker) {
		tp := newTopics(t, b)
		w := startWorker(t, "http", workerEnv(b, tp, "HYGIENE_HTTP_LISTEN=127.0.0.1:0", "HYGIENE_HTTP_MAX_CONCURRENT=4"))
		url := w.sanitizeURL(t)
		waitReady(t, w)
		base := strings.TrimSuffix(url, httpapi.Path)
		for path, want := range map[string]int{"/healthz": http.StatusOK, "/readyz": http.StatusOK, "/metrics": http.StatusNotFound} {
			if status, body := httpGet(t, base+path); status != want {
				t.Errorf("GET %s on the sanitize port = %d %q, want %d (the probes, not the metrics)", path, status, body, want)
			}
		}

		job, err := os.ReadFile("../../examples/openai-responses-damaged.json")
		if err != nil {
			t.Fatal(err)
		}
		cli := exec.Command(workerBin, "sanitize", "../../examples/openai-responses-damaged.json")
		cli.Env = []string{"PATH=" + os.Getenv("PATH")}
		want, err := cli.Output()
		if err != nil {
			t.Fatalf("worker sanitize: %v", err)
		}
		resp, err := http.Post(url, "application/json", bytes.NewReader(job))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		schematest.SanitizeResponse(t, resp.StatusCode, got)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(append(got, '\n'), want) {
			t.Fatalf("POST %s: %d, same bytes as worker sanitize: %v\n%s", url, resp.StatusCode, bytes.Equal(append(got, '\n'), want), got)
		}
		resp, err = http.Post(url, "application/json", strings.NewReader(`{"job_id":"x","tenant":"acme"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		schematest.SanitizeResponse(t, resp.StatusCode, body)
		var problem httpapi.Problem
		_ = json.Unmarshal(body, &problem)
		if resp.StatusCode != http.StatusBadRequest || problem.Code != "invalid_job" || problem.Error == "" {
			t.Fatalf("a bad job: %d %+v", resp.StatusCode, problem)
		}

		out := collect(t, b, tp)
		rec, id := jobRecord("http-kafka", 1)
		if err := newProducer(t, b, tp.jobs).write(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		out.waitAll(t, []string{id}, 60*time.Second)
		// The ready record is written before its job is acknowledged and
		// counted, so the count may lag the record by a moment.
		var counts map[string]float64
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			counts = sourceJobs(t, w.metrics+"/metrics")
			ok := counts[metrics.SourceHTTP+"/ready"] == 1 && counts[metrics.SourceHTTP+"/dead_letter"] == 1 && counts[metrics.SourceKafka+"/ready"] == 1
			if ok || time.Now().After(deadline) {
				break
			}
		}
		if counts[metrics.SourceHTTP+"/ready"] != 1 || counts[metrics.SourceHTTP+"/dead_letter"] != 1 || counts[metrics.SourceKafka+"/ready"] != 1 {
			t.Errorf("hygiene_source_jobs_total = %v; want http ready 1, http dead_letter 1, kafka ready 1", counts)
		}
		w.stop()
	})
}

// sourceJobs scrapes hygiene_source_jobs_total as "source/outcome" -> count.
func sourceJobs(t *testing.T, url string) map[string]float64 {
	t.Helper()
	counts := map[string]float64{}
	for _, m := range scrape(t, url)["hygiene_source_jobs_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		counts[labels["source"]+"/"+labels["outcome"]] = m.GetCounter().GetValue()
	}
	return counts
}

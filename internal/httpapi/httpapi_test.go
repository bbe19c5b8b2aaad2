package httpapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hygiene-dev/hygiene/docs/schemas/schematest"
	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/health"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/pipeline/pipelinetest"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/memory"
)

// rig is a real runner (memory topics with no jobs, the real Processor)
// behind the endpoint on a real TCP listener.
type rig struct {
	url    string
	client *http.Client // http.DefaultClient unless a test trusts its own CA
	m      *metrics.Metrics
	proc   *pipeline.Processor
	stop   context.CancelFunc
	runErr chan error
}

func newRig(t *testing.T, cfg Config) *rig { t.Helper(); return newRigTLS(t, cfg, nil) }

// newRigTLS is newRig serving HTTPS with tlsCfg on a real listener (a nil
// tlsCfg serves plain HTTP).
func newRigTLS(t *testing.T, cfg Config, tlsCfg *tls.Config) *rig {
	t.Helper()
	wcfg := config.Default()
	proc, _ := pipelinetest.Processor(t, wcfg)
	b := memory.NewBroker()
	for _, topic := range []string{"jobs", "ready", "dlq"} {
		if err := b.CreateTopic(topic, 1); err != nil {
			t.Fatal(err)
		}
	}
	src, err := b.NewSource(memory.SourceConfig{Topic: "jobs", Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := metrics.New(prometheus.NewPedanticRegistry())
	if err != nil {
		t.Fatal(err)
	}
	rcfg := pipeline.RunnerConfigFrom(wcfg, 2)
	runner, err := pipeline.NewRunner(rcfg, pipeline.RunnerDeps{
		Source: src, Ready: b.NewSink(memory.SinkConfig{Topic: "ready"}), DLQ: b.NewSink(memory.SinkConfig{Topic: "dlq"}),
		Processor: proc, Metrics: m,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	g := &rig{m: m, proc: proc, stop: stop, runErr: make(chan error, 1)}
	go func() { g.runErr <- runner.Run(ctx) }()
	srv, err := health.ListenTLS("127.0.0.1:0", Handler(cfg, runner, m, nil), tlsCfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(); <-g.runErr; _ = srv.Close(context.Background()) })
	g.url = "http://" + srv.Addr() + Path
	if tlsCfg != nil {
		g.url = "https://" + srv.Addr() + Path
	}
	return g
}

func (g *rig) post(t *testing.T, body []byte, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	client := g.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	schematest.SanitizeResponse(t, resp.StatusCode, out)
	return resp, out
}

func problemOf(t *testing.T, body []byte) Problem {
	t.Helper()
	var p Problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("response %q is not a problem JSON: %v", body, err)
	}
	return p
}

var defaultCfg = Config{MaxBodyBytes: 256 << 10, MaxConcurrent: 4, RetryAfter: 2 * time.Second, ReadTimeout: 10 * time.Second}

// A good job answers its ready payload, byte for byte what the Kafka path
// writes; a zstd body is the same job; the caller's trace headers come back.
func TestSanitizeAnswersTheReadyPayload(t *testing.T) {
	g := newRig(t, defaultCfg)
	job, err := os.ReadFile("../../examples/gemini-damaged.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := g.proc.Process(context.Background(), transport.Record{Value: job})
	if err != nil || !want.Ready {
		t.Fatalf("the example is not a good job: %+v %v", want, err)
	}
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	resp, body := g.post(t, job, http.Header{"Traceparent": {tp}, "Content-Type": {"application/json"}})
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want.Payload) {
		t.Fatalf("status %d, body equal to the Kafka path's payload: %v\n%s", resp.StatusCode, bytes.Equal(body, want.Payload), body)
	}
	if got := resp.Header.Get("traceparent"); got != tp {
		t.Errorf("traceparent echoed %q, want %q", got, tp)
	}
	resp, body = g.post(t, compression.Encode(job), http.Header{"Content-Encoding": {"zstd"}})
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want.Payload) {
		t.Fatalf("zstd body: status %d\n%s", resp.StatusCode, body)
	}
	if got := testutil.ToFloat64(g.m.SourceJobs.WithLabelValues(metrics.SourceHTTP, metrics.OutcomeReady)); got != 2 {
		t.Errorf("hygiene_source_jobs_total{source=http,outcome=ready} = %v, want 2", got)
	}
	if got := testutil.ToFloat64(g.m.Jobs.WithLabelValues(metrics.OutcomeReady)); got != 0 {
		t.Errorf("hygiene_jobs_total{outcome=ready} = %v; HTTP jobs are counted under their source only", got)
	}
}

// A bad job gets 400 with its dead-letter code and sentence; a body over
// the limit gets 413, declared or streamed.
func TestSanitizeRefusesBadAndLargeJobs(t *testing.T) {
	g := newRig(t, defaultCfg)
	tests := []struct {
		name   string
		body   string
		status int
		code   string
		says   string
	}{
		{"not JSON", `{"job_id": `, http.StatusBadRequest, "invalid_json", ""},
		{"missing messages", `{"job_id":"j","tenant":"acme","session_id":"s","target":{"provider":"anthropic","api":"anthropic-messages","model":"m"}}`,
			http.StatusBadRequest, "invalid_job", "messages"},
		{"unknown provider", `{"job_id":"j","tenant":"acme","session_id":"s","target":{"provider":"","api":"","model":""},"messages":[]}`,
			http.StatusBadRequest, "invalid_target", "target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := g.post(t, []byte(tt.body), nil)
			p := problemOf(t, body)
			if resp.StatusCode != tt.status || p.Code != tt.code || p.Error == "" || !strings.Contains(p.Error, tt.says) {
				t.Fatalf("status %d, problem %+v; want %d %s naming %q", resp.StatusCode, p, tt.status, tt.code, tt.says)
			}
		})
	}
	big := bytes.Repeat([]byte(" "), int(defaultCfg.MaxBodyBytes)+1)
	resp, body := g.post(t, big, nil)
	if p := problemOf(t, body); resp.StatusCode != http.StatusRequestEntityTooLarge || p.Code != "payload_too_large" {
		t.Fatalf("declared oversize body: %d %+v", resp.StatusCode, p)
	}
	req, _ := http.NewRequest(http.MethodPost, g.url, io.MultiReader(bytes.NewReader(big))) // no length: chunked
	req.ContentLength = -1
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp2.Body)
	resp2.Body.Close()
	if p := problemOf(t, body); resp2.StatusCode != http.StatusRequestEntityTooLarge || p.Code != "payload_too_large" {
		t.Fatalf("streamed oversize body: %d %+v", resp2.StatusCode, p)
	}
	if got := testutil.ToFloat64(g.m.HTTPRejected.WithLabelValues(metrics.RejectTooLarge)); got != 2 {
		t.Errorf("hygiene_http_rejected_total{reason=too_large} = %v, want 2", got)
	}
}

// A client that sends half a body holds one of the slots; with every slot
// taken the next request gets 429 with Retry-After; when the client
// disconnects mid-request its slot comes back and nothing is answered.
func TestSanitizeBoundsConcurrencyAndSurvivesADisconnect(t *testing.T) {
	g := newRig(t, Config{MaxBodyBytes: 1 << 20, MaxConcurrent: 1, RetryAfter: 1500 * time.Millisecond, ReadTimeout: 10 * time.Second})
	addr := strings.TrimPrefix(strings.TrimSuffix(g.url, Path), "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 5000\r\n\r\n{\"job_id\": \"half", Path, addr)
	waitFor(t, func() bool { return testutil.ToFloat64(g.m.HTTPInProgress) == 1 })

	resp, body := g.post(t, []byte(`{}`), nil)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" || problemOf(t, body).Code != CodeBusy {
		t.Fatalf("with every slot taken: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	conn.Close()
	waitFor(t, func() bool { return testutil.ToFloat64(g.m.HTTPInProgress) == 0 })
	if got := testutil.ToFloat64(g.m.HTTPRejected.WithLabelValues(metrics.RejectClientGone)); got != 1 {
		t.Errorf("hygiene_http_rejected_total{reason=client_gone} = %v, want 1", got)
	}
	job, _ := os.ReadFile("../../examples/anthropic-damaged.json")
	if resp, body := g.post(t, job, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("after the disconnect: %d %s", resp.StatusCode, body)
	}
}

// Once the worker drains, requests get 503 with Retry-After.
func TestSanitizeRefusesWhileDraining(t *testing.T) {
	g := newRig(t, defaultCfg)
	g.stop()
	if err := <-g.runErr; err != nil {
		t.Fatal(err)
	}
	g.runErr <- nil // for the cleanup
	resp, body := g.post(t, []byte(`{}`), nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "2" || problemOf(t, body).Code != CodeDraining {
		t.Fatalf("while draining: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

// waitFor polls cond until it holds. The server is a real HTTP server on a
// real socket (the disconnect case needs a TCP connection the server sees
// close), which a synctest bubble cannot hold, and the gauge it reads has no
// hook to wait on, so the poll sleeps a millisecond of wall time between
// reads; it fails after 10s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10s")
		}
		time.Sleep(time.Millisecond)
	}
}

package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// A job that carries a provider request body is answered its ready
// payload, the Kafka path's bytes: the body parsed, repaired and rendered,
// with input_format.
func TestSanitizeAnswersARequestJob(t *testing.T) {
	g := newRig(t, defaultCfg)
	job, err := os.ReadFile("../../examples/from-openai-responses-damaged.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := g.proc.Process(context.Background(), transport.Record{Value: job})
	if err != nil || !want.Ready {
		t.Fatalf("the example is not a good job: %+v %v", want, err)
	}
	resp, body := g.post(t, job, http.Header{"Content-Type": {"application/json"}})
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want.Payload) || !bytes.Contains(body, []byte(`"input_format":"openai-responses"`)) {
		t.Fatalf("status %d\n%s", resp.StatusCode, body)
	}
}

package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/memory"
)

// An original too large for the dead-letter topic goes as a stand-in: its
// first bytes up to the limit, its length and sha256 in headers, and its
// source; it is still acknowledged.
func TestRunnerDeadLetterStandIn(t *testing.T) {
	g := newRig(t, 1)
	const limit = 4 << 10
	g.dlq = g.b.NewSink(memory.SinkConfig{Topic: dlqTopic, MaxMessageBytes: limit, CompressAbove: -1})
	g.cfg.DeadLetterMaxBytes = limit
	original := bytes.Repeat([]byte("0123456789abcdef"), 1024) // 16 KiB, over the limit
	if err := g.jobs.Write(context.Background(), transport.Record{Key: []byte("acme/big"), Value: original}); err != nil {
		t.Fatal(err)
	}
	g.runToEnd(t, ProcessorFunc(func(context.Context, transport.Record) (Outcome, error) {
		return Outcome{Code: "payload_too_large", Stage: StageDecode, Error: "the job is larger than limits.max_job_bytes"}, nil
	}))
	dlq := g.records(t, dlqTopic)
	if len(dlq) != 1 {
		t.Fatalf("%d dead letters, want 1", len(dlq))
	}
	d := dlq[0]
	if d.Size() > limit || len(d.Value) == 0 || !bytes.HasPrefix(original, d.Value) {
		t.Fatalf("stand-in of %d bytes with a value of %d bytes: want at most %d bytes and a prefix of the original", d.Size(), len(d.Value), limit)
	}
	sum := sha256.Sum256(original)
	if v, _ := d.Header(deadletter.HeaderOriginalSHA256); string(v) != hex.EncodeToString(sum[:]) {
		t.Errorf("%s = %q", deadletter.HeaderOriginalSHA256, v)
	}
	if v, _ := d.Header(deadletter.HeaderOriginalBytes); string(v) != strconv.Itoa(len(original)) {
		t.Errorf("%s = %q, want %d", deadletter.HeaderOriginalBytes, v, len(original))
	}
	if v, _ := d.Header(deadletter.HeaderSource); string(v) != jobsTopic+"/0/0" {
		t.Errorf("%s = %q", deadletter.HeaderSource, v)
	}
	if v, _ := d.Header(deadletter.HeaderError); !strings.Contains(string(v), "first bytes") {
		t.Errorf("%s = %q, want it to say the value is cut", deadletter.HeaderError, v)
	}
	if !g.committedAll(t, 1) {
		t.Error("the job with a stand-in dead letter was not acknowledged")
	}
}

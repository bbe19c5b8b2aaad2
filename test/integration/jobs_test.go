package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// jobValue is a small valid job: a user turn and an assistant reply.
func jobValue(id, tenant, session string) []byte {
	return fmt.Appendf(nil, `{"job_id":%q,"tenant":%q,"session_id":%q,`+
		`"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},`+
		`"options":{"now_ms":1776000905000},"messages":[`+
		`{"role":"user","content":"question %s","timestamp":1776000900000},`+
		`{"role":"assistant","content":[{"type":"text","text":"answer %s"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"stop","timestamp":1776000901000}]}`,
		id, tenant, session, id, id)
}

// jobRecord is job i of a stream: 5 tenants, 40 sessions.
func jobRecord(prefix string, i int) (transport.Record, string) {
	id := fmt.Sprintf("%s-%05d", prefix, i)
	tenant := fmt.Sprintf("tenant%d", i%5)
	session := fmt.Sprintf("session%d", i%40)
	return transport.Record{Key: []byte(tenant + "/" + session), Value: jobValue(id, tenant, session)}, id
}

// producer writes jobs to a topic, retrying while the broker is away.
type producer struct {
	sink *kafka.Sink
}

func newProducer(t *testing.T, b broker, topic string) *producer {
	t.Helper()
	sink, err := kafka.NewSink(kafka.SinkConfig{Config: kafka.Config{Brokers: b.brokers()}, Topic: topic,
		MaxMessageBytes: 1_000_000, CompressAbove: -1, BatchTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sink.Close(context.Background()) })
	return &producer{sink: sink}
}

// write writes recs, retrying transient failures for up to two minutes.
func (p *producer) write(ctx context.Context, recs ...transport.Record) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := p.sink.Write(ctx, recs...)
		if err == nil || errors.Is(err, transport.ErrRecordTooLarge) || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stream produces n jobs in batches of batch every interval and returns
// their ids. It runs in the background; the channel yields the result.
func (p *producer) stream(t *testing.T, prefix string, n, batch int, interval time.Duration) <-chan []string {
	done := make(chan []string, 1)
	go func() {
		var ids []string
		for i := 0; i < n; i += batch {
			var recs []transport.Record
			for j := i; j < min(i+batch, n); j++ {
				rec, id := jobRecord(prefix, j)
				recs = append(recs, rec)
				ids = append(ids, id)
			}
			if err := p.write(context.Background(), recs...); err != nil {
				t.Errorf("producing jobs %d..%d: %v", i, i+len(recs)-1, err)
				break
			}
			time.Sleep(interval)
		}
		done <- ids
	}()
	return done
}

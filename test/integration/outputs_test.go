package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/docs/schemas/schematest"
	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// outputs collects the ready and dead-letter records of one test, counted
// by job id (read from the payload, or from the original job in a dead
// letter) and kept whole for dead letters. Each job's first ready payload
// and every dead letter is validated against its published schema
// (docs/schemas).
type outputs struct {
	tb      testing.TB
	mu      sync.Mutex
	ready   map[string]int
	dead    map[string]int
	letters []transport.Record
	first   map[string][]byte // the value of each job's first ready record
	changed chan struct{}
	differs int // ready records whose value is not their job's first one
}

// collect reads tp's ready and dead-letter topics from the start, in a
// consumer group of its own, until the test ends.
func collect(t *testing.T, b broker, tp topics) *outputs {
	t.Helper()
	o := &outputs{tb: t, ready: map[string]int{}, dead: map[string]int{}, first: map[string][]byte{}, changed: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	for _, topic := range []string{tp.ready, tp.dlq} {
		src, err := kafka.NewSource(kafka.SourceConfig{Config: kafka.Config{Brokers: b.brokers()},
			Topic: topic, GroupID: topic + ".collector-" + hex.EncodeToString(suffix)})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			failing := false
			for {
				rec, ack, err := src.Read(ctx)
				if err != nil {
					if ctx.Err() != nil || errors.Is(err, transport.ErrClosed) {
						return
					}
					if !failing { // e.g. the broker is restarting: say so once
						t.Logf("reading %s: %v (retrying)", topic, err)
						failing = true
					}
					time.Sleep(100 * time.Millisecond)
					continue
				}
				failing = false
				o.add(topic == tp.ready, rec)
				_ = ack(ctx, nil)
			}
		}()
		t.Cleanup(func() { _ = src.Close(context.Background()) })
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	return o
}

func (o *outputs) add(ready bool, rec transport.Record) {
	id := jobID(rec)
	o.mu.Lock()
	defer o.mu.Unlock()
	if ready {
		o.ready[id]++
		if first, ok := o.first[id]; !ok {
			o.first[id] = rec.Value
			o.validatePayload(rec)
		} else if !bytes.Equal(first, rec.Value) {
			o.differs++
		}
	} else {
		o.dead[id]++
		o.letters = append(o.letters, rec)
		schematest.DeadLetter(o.tb, rec)
	}
	close(o.changed)
	o.changed = make(chan struct{})
}

// validatePayload checks a ready record's payload, decompressed, against
// the payload schema.
func (o *outputs) validatePayload(rec transport.Record) {
	value, err := compression.Decode(rec.Value, rec.ContentEncoding(), 64<<20)
	if err != nil {
		o.tb.Errorf("a ready record that does not decompress: %v", err)
		return
	}
	schematest.Payload(o.tb, value)
}

// jobID reads the job id of a ready payload or of a dead letter's original
// value; "" when there is none.
func jobID(rec transport.Record) string {
	value, err := compression.Decode(rec.Value, transport.Record{Headers: withoutDLQHeaders(rec.Headers)}.ContentEncoding(), 8<<20)
	if err != nil {
		return ""
	}
	var head struct {
		JobID string `json:"job_id"`
	}
	if json.Unmarshal(value, &head) != nil {
		return ""
	}
	return head.JobID
}

func withoutDLQHeaders(hs []transport.Header) []transport.Header {
	var out []transport.Header
	for _, h := range hs {
		switch h.Key {
		case deadletter.HeaderErrorCode, deadletter.HeaderError, deadletter.HeaderStage, deadletter.HeaderSource:
		default:
			out = append(out, h)
		}
	}
	return out
}

// waitAll waits until every id has an output, or fails the test naming the
// missing ones.
func (o *outputs) waitAll(t *testing.T, ids []string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		o.mu.Lock()
		missing := o.missingLocked(ids)
		changed := o.changed
		o.mu.Unlock()
		if len(missing) == 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			sort.Strings(missing)
			t.Fatalf("%d of %d jobs have no ready or dead-letter record after %s; first missing: %v", len(missing), len(ids), timeout, missing[:min(10, len(missing))])
		}
	}
}

func (o *outputs) missingLocked(ids []string) []string {
	var missing []string
	for _, id := range ids {
		if o.ready[id]+o.dead[id] == 0 {
			missing = append(missing, id)
		}
	}
	return missing
}

// duplicates counts outputs beyond the first, over ids.
func (o *outputs) duplicates(ids []string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, id := range ids {
		n += max(0, o.ready[id]+o.dead[id]-1)
	}
	return n
}

// differing counts the ready records that are not byte-identical to the
// first ready record of their job (a repeated job must repeat its output).
func (o *outputs) differing() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.differs
}

// readyValue returns the value of a job's first ready record (nil before
// one came).
func (o *outputs) readyValue(id string) []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.first[id]
}

// deadLetters returns the dead letters collected so far.
func (o *outputs) deadLetters() []transport.Record {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]transport.Record(nil), o.letters...)
}

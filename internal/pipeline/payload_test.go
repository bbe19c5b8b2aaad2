package pipeline

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// copyingSink is a transport.Copier: it keeps a copy of every value it is
// given and none of the buffers, as the Kafka Sink sends them.
type copyingSink struct {
	mu     sync.Mutex
	values map[string][]byte // by record key
}

func (s *copyingSink) Write(_ context.Context, recs ...transport.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range recs {
		s.values[string(r.Key)] = bytes.Clone(r.Value)
	}
	return nil
}

func (s *copyingSink) Close(context.Context) error { return nil }

func (s *copyingSink) CopiesRecords() {}

// TestRecycledPayloadBuffersKeepPayloadsExact: with a ready sink that
// copies (a transport.Copier) the runner gives each written payload's
// buffer to the payloads that follow, and every payload is still the
// bytes Process gives the job alone; with one that keeps the records (the
// in-memory sink) it gives none back, and every kept payload stays intact
// after the jobs that followed it.
func TestRecycledPayloadBuffersKeepPayloadsExact(t *testing.T) {
	cfg := config.Default()
	gen := sessiongen.New(sessiongen.Config{Seed: 7, Messages: 10, ToolCallDensity: 0.6, Damage: sessiongen.Realistic(), Tenants: 3, Sessions: 400})
	want := map[string][]byte{}
	var recs []transport.Record
	alone := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{Stages: stages.Default(nil)})
	for i := range 300 {
		key, value := gen.Job(i)
		if _, dup := want[key]; dup {
			continue // one job per key: the sink keeps the last value of a key
		}
		out, err := alone.Process(context.Background(), transport.Record{Value: value})
		if err != nil || !out.Ready {
			t.Fatalf("job %d: %v %s", i, err, out.Error)
		}
		want[key] = bytes.Clone(out.Payload)
		recs = append(recs, transport.Record{Key: []byte(key), Value: value})
	}
	for _, copies := range []bool{true, false} {
		g := newRig(t, 3)
		g.cfg.MaxInflightBytes = 64 << 20
		copying := &copyingSink{values: map[string][]byte{}}
		if copies {
			g.ready = copying
		}
		if err := g.jobs.Write(context.Background(), recs...); err != nil {
			t.Fatal(err)
		}
		p := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{Stages: stages.Default(nil)})
		r, src := g.runner(t, p, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		if err := r.Run(ctx); err != nil {
			t.Fatalf("Run: %v", err)
		}
		cancel()
		_ = src.Close(context.Background())
		got := copying.values
		if !copies {
			got = map[string][]byte{}
			for _, rec := range g.records(t, readyTopic) {
				got[string(rec.Key)] = rec.Value
			}
		}
		if len(got) != len(want) {
			t.Fatalf("copies %v: %d payloads, want %d", copies, len(got), len(want))
		}
		for key, payload := range want {
			if !bytes.Equal(got[key], payload) {
				t.Fatalf("copies %v: the payload of %s differs from the job's alone:\n got %.300s\nwant %.300s", copies, key, got[key], payload)
			}
		}
	}
}

// TestPayloadBufferReusesOnlyAFittingBuffer: a recycled buffer serves a
// payload that fits it, emptied, and not one less than half its size (it
// would hold memory the payload does not need); a buffer larger than a
// small job's payload is not kept.
func TestPayloadBufferReusesOnlyAFittingBuffer(t *testing.T) {
	if raceBuild {
		t.Skip("sync.Pool drops entries at random under the race detector")
	}
	b := make([]byte, 100, 1000)
	recyclePayload(b)
	if got := payloadBuffer(600); len(got) != 0 || cap(got) != 1000 || &got[:1][0] != &b[0] {
		t.Fatalf("payloadBuffer(600) = len %d cap %d, want the recycled buffer, empty", len(got), cap(got))
	}
	recyclePayload(b)
	if got := payloadBuffer(499); cap(got) != 499 {
		t.Fatalf("payloadBuffer(499) took a buffer of %d", cap(got))
	}
	recyclePayload(b)
	if got := payloadBuffer(1001); cap(got) != 1001 {
		t.Fatalf("payloadBuffer(1001) took a buffer of %d", cap(got))
	}
	recyclePayload(make([]byte, 0, maxRecycledPayload+1))
	if got := payloadBuffer(maxRecycledPayload / 2); cap(got) != maxRecycledPayload/2 {
		t.Fatalf("a long history's payload buffer of %d was kept", cap(got))
	}
}

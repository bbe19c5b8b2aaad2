package transporttest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// delivery is one record read with its ack.
type delivery struct {
	rec transport.Record
	ack transport.AckFunc
}

// Name returns a unique, Kafka-safe name built from t's name and prefix.
func Name(t *testing.T, prefix string) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	base := strings.NewReplacer("/", ".", " ", "_").Replace(t.Name())
	if len(base) > 120 {
		base = base[len(base)-120:]
	}
	return prefix + "." + base + "." + hex.EncodeToString(b[:])
}

func group(t *testing.T) string { return Name(t, "group") }

// numbered returns n records whose keys are all "k" and values "0".."n-1",
// so on a one-partition topic value i sits at offset i.
func numbered(n int) []transport.Record {
	recs := make([]transport.Record, n)
	for i := range recs {
		recs[i] = transport.Record{Key: []byte("k"), Value: []byte(strconv.Itoa(i))}
	}
	return recs
}

func write(t *testing.T, sink transport.Sink, recs ...transport.Record) {
	t.Helper()
	if err := sink.Write(context.Background(), recs...); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

// readN reads n records, failing t if they do not all arrive within h.Wait.
func readN(t *testing.T, h Harness, src transport.Source, n int) []delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), h.Wait)
	defer cancel()
	out := make([]delivery, 0, n)
	for len(out) < n {
		rec, ack, err := src.Read(ctx)
		if err != nil {
			t.Fatalf("Read record %d of %d: %v", len(out)+1, n, err)
		}
		out = append(out, delivery{rec: rec, ack: ack})
	}
	return out
}

// expectNothing fails t if src delivers a record within h.Quiet.
func expectNothing(t *testing.T, h Harness, src transport.Source) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), h.Quiet)
	defer cancel()
	rec, _, err := src.Read(ctx)
	if err == nil {
		t.Fatalf("Read returned %s, want no record", rec.SourceRef())
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Read = %v, want DeadlineExceeded", err)
	}
}

func ack(t *testing.T, d delivery, err error) {
	t.Helper()
	if ackErr := d.ack(context.Background(), err); ackErr != nil {
		t.Fatalf("ack of %s: %v", d.rec.SourceRef(), ackErr)
	}
}

func closeSource(t *testing.T, src transport.Source) {
	t.Helper()
	if err := src.Close(context.Background()); err != nil {
		t.Fatalf("Source.Close: %v", err)
	}
}

func mustHeader(t *testing.T, r transport.Record, key string) []byte {
	t.Helper()
	v, ok := r.Header(key)
	if !ok {
		t.Fatalf("record %s has no header %q", r.SourceRef(), key)
	}
	return v
}

package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// TestProcessToWritesProcessPayload holds ProcessTo to Process over the
// default chain, with and without a fanout: generated jobs (damaged and
// undamaged, one long enough that spans of its input are written past the
// stream's buffer) and broken copies of them give the same outcome, and
// the bytes written are the payload, only for a ready job.
func TestProcessToWritesProcessPayload(t *testing.T) {
	cfg := config.Default()
	procs := []*Processor{
		NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{Stages: stages.Default(nil)}),
		NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{Stages: stages.Default(nil), Fanout: fanout.New(3, 1).WithMinBytes(1)}),
	}
	tg := transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}
	ready := 0
	for seed, n := range []int{40, 300, 4000} {
		for _, damage := range []sessiongen.Damage{sessiongen.Realistic(), {}} {
			_, job := sessiongen.New(sessiongen.Config{Seed: uint64(seed), Messages: n, ToolCallDensity: 0.5,
				Damage: damage, Target: tg, RealLengthIDs: true}).Job(0)
			for _, value := range [][]byte{job, job[:len(job)/2]} {
				for _, p := range procs {
					want, err := p.Process(context.Background(), transport.Record{Value: value})
					if err != nil {
						t.Fatal(err)
					}
					var written bytes.Buffer
					got, err := p.ProcessTo(context.Background(), transport.Record{Value: value}, &written)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(written.Bytes(), want.Payload) {
						t.Fatalf("seed %d, %d messages: ProcessTo wrote %d bytes, Process's payload is %d", seed, n, written.Len(), len(want.Payload))
					}
					if got.Payload != nil {
						t.Fatal("ProcessTo's outcome holds a payload")
					}
					want.Payload = nil
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("seed %d, %d messages: outcome\n got %+v\nwant %+v", seed, n, got, want)
					}
					if got.Ready {
						ready++
					}
				}
			}
		}
	}
	if ready == 0 {
		t.Fatal("no job was ready: the test compares only dead letters")
	}
}

// TestProcessToReturnsTheWriteError: a payload that cannot be written is
// the call's error, not a dead letter.
func TestProcessToReturnsTheWriteError(t *testing.T) {
	cfg := config.Default()
	p := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{Stages: stages.Default(nil)})
	_, err := p.ProcessTo(context.Background(), transport.Record{Value: []byte(processJob)}, failWriter{})
	if !errors.Is(err, errNoRoom) {
		t.Fatalf("error %v, want the writer's", err)
	}
}

var errNoRoom = errors.New("no space left on device")

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errNoRoom }

// TestProcessToLiveMemory bounds what a long job keeps live beyond its
// input through the whole default chain, written by ProcessTo: the heap
// after a collection, after every rule and at every write of the payload,
// at most liveBound bytes per input byte. The tapes (their capacity) and
// the views of the messages are ~1.3x of a history of short messages; the
// payload is not held (a payload held whole is 1x more, over the bound;
// the tape's 20-byte members were 0.17x more).
func TestProcessToLiveMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("collects the heap after every rule of a 3.7 MB job")
	}
	const liveBound = 1.6
	tg := transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}
	_, damaged := sessiongen.New(sessiongen.Config{Seed: 31, Messages: 12000, TextChars: 60, ToolResultChars: 120,
		Target: tg, Damage: sessiongen.Realistic(), RealLengthIDs: true}).Job(0)
	var ms runtime.MemStats
	live := func() uint64 { runtime.GC(); runtime.ReadMemStats(&ms); return ms.HeapAlloc }
	var peak, before uint64
	measure := func() { peak = max(peak, live()) }
	cfg := config.Default()
	cfg.Limits.MaxJobBytes = 1 << 30
	p := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{Stages: stages.Default(nil),
		Observe: func(string) func(time.Duration) { return func(time.Duration) { measure() } }})
	// A first run loads what the process keeps for every job after it
	// (the tokenizers' vocabularies, the pools); the clean job it gives
	// is measured.
	job := cleanOf(t, p, damaged)
	runtime.GC() // the pools' arrays are dropped at the second collection: the job's tapes are its own
	peak, before = 0, live()
	w := &measuringWriter{measure: measure}
	out, err := p.ProcessTo(context.Background(), transport.Record{Value: job}, w)
	if err != nil || !out.Ready {
		t.Fatalf("%v %s", err, out.Error)
	}
	if w.n < len(job)/2 {
		t.Fatalf("wrote %d bytes of a %d-byte job", w.n, len(job))
	}
	perByte := float64(peak-min(peak, before)) / float64(len(job))
	t.Logf("%d-byte job: %.2f bytes live per input byte at the peak", len(job), perByte)
	if perByte > liveBound {
		t.Fatalf("%.2f bytes live per input byte, over %.1f", perByte, liveBound)
	}
}

// cleanOf is the clean job of damaged: its messages replaced by those of
// its ready payload, as a runner sends the session's next job.
func cleanOf(t *testing.T, p *Processor, damaged []byte) []byte {
	t.Helper()
	out, err := p.Process(context.Background(), transport.Record{Value: damaged})
	if err != nil || !out.Ready {
		t.Fatalf("%v %s", err, out.Error)
	}
	var job, payload map[string]json.RawMessage
	if err := json.Unmarshal(damaged, &job); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	job["messages"] = payload["messages"]
	clean, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	return clean
}

// measuringWriter counts what is written and measures the heap at every
// write.
type measuringWriter struct {
	n       int
	measure func()
}

func (w *measuringWriter) Write(b []byte) (int, error) {
	w.measure()
	w.n += len(b)
	return len(b), nil
}

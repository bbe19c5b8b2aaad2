package transcript_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

var chatTarget = transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}

// generatedJob is a sessiongen job of about n messages, of the large
// suite's kind (realistic heavy damage, short texts).
func generatedJob(seed uint64, n int) []byte {
	_, job := sessiongen.New(sessiongen.Config{Seed: seed, Messages: n, ToolCallDensity: 0.5, Damage: sessiongen.Heavy(),
		TextChars: 60, ToolResultChars: 120, Target: chatTarget}).Job(0)
	return job
}

// TestChunkedCodecMatchesSequentialOnGeneratedJobs: sessiongen jobs, and
// copies of them broken at random places (a byte dropped, a byte replaced
// by a JSON delimiter), decode in 2, 3, 5 and 8 parts to the sequential transcript
// or to the same error, and their payloads encode to the same bytes.
func TestChunkedCodecMatchesSequentialOnGeneratedJobs(t *testing.T) {
	pool := fanout.New(7, 1)
	rng := rand.New(rand.NewPCG(12, 5))
	errorsSeen := 0
	for seed := range uint64(20) {
		job := generatedJob(seed, 50+int(seed)*20)
		inputs := [][]byte{job}
		for range 6 {
			at := rng.IntN(len(job))
			dropped := append(append([]byte{}, job[:at]...), job[at+1:]...)
			replaced := bytes.Clone(job)
			replaced[at] = `{}[],:"\`[rng.IntN(8)]
			inputs = append(inputs, dropped, replaced)
		}
		for _, data := range inputs {
			want, wantErr := transcript.DecodeJob(data, transcript.Limits{MaxDepth: 12})
			for _, k := range []int{2, 3, 5, 8} {
				got, gotErr := transcript.DecodeJobParallel(data, transcript.Limits{MaxDepth: 12}, transcript.Parallel{Chunks: k, Run: pool.Run})
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || transcript.ErrorCode(gotErr) != transcript.ErrorCode(wantErr) {
					t.Fatalf("seed %d, %d parts: error %v, sequential %v", seed, k, gotErr, wantErr)
				}
				if wantErr != nil {
					continue
				}
				if err := transcript.SameTranscript(got, want); err != nil {
					t.Fatalf("seed %d, %d parts: the transcript differs: %v", seed, k, err)
				}
				got.Messages[len(got.Messages)/2].Set("edited", []byte("1"))
				seqOut := got.EncodePayload(nil, nil)
				if out := got.AppendPayload(nil, got.EncodeMessages(transcript.Parallel{Chunks: k, Run: pool.Run}), nil); !bytes.Equal(out, seqOut) {
					t.Fatalf("seed %d, %d parts: the payload differs", seed, k)
				}
			}
			if wantErr != nil {
				errorsSeen++
			}
		}
	}
	if errorsSeen == 0 {
		t.Fatal("no broken input was refused: the errors were not compared")
	}
}

// BenchmarkChunkedCodec decodes and encodes sessiongen jobs of 100k and 1M
// messages sequentially, in GOMAXPROCS parts on a fanout pool and in 4
// times as many (the pipeline's codecPartsPerChunk) (run it
// with GOMAXPROCS=2 for the 2-core figures); the encode edits every tenth
// message first, as the rules do. It reports allocations per message.
func BenchmarkChunkedCodec(b *testing.B) {
	pool := fanout.New(runtime.GOMAXPROCS(0)-1, 1).WithMinBytes(1)
	for _, n := range []int{100_000, 1_000_000} {
		job := generatedJob(1, n)
		tr, err := transcript.DecodeJob(job, transcript.Limits{MaxBytes: len(job), MaxMessages: 2 * n})
		if err != nil {
			b.Fatal(err)
		}
		msgs := len(tr.Messages)
		for i, m := range tr.Messages {
			if i%10 == 0 {
				m.Set("edited", []byte("true"))
			}
		}
		for _, way := range []struct {
			name string
			par  transcript.Parallel
		}{{"sequential", transcript.Parallel{}},
			{"chunked", transcript.Parallel{Chunks: pool.ChunksForBytes(len(job)), Run: pool.Run}},
			{"chunked-x4", transcript.Parallel{Chunks: 4 * pool.ChunksForBytes(len(job)), Run: pool.Run}}} {
			b.Run(fmt.Sprintf("decode/%dk/%s", n/1000, way.name), func(b *testing.B) {
				b.SetBytes(int64(len(job)))
				b.ReportAllocs()
				perMessage(b, msgs, func() {
					if _, err := transcript.DecodeJobParallel(job, transcript.Limits{MaxBytes: len(job), MaxMessages: 2 * n}, way.par); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run(fmt.Sprintf("encode/%dk/%s", n/1000, way.name), func(b *testing.B) {
				b.SetBytes(int64(len(job)))
				b.ReportAllocs()
				perMessage(b, msgs, func() { _ = tr.AppendPayload(nil, tr.EncodeMessages(way.par), nil) })
			})
		}
	}
}

// perMessage runs f in the benchmark loop and reports its allocations
// per message (allocs/msg) and the process's CPU time per run (cpu-ms/op:
// above the wall time when the parts ran in parallel; on a shared machine
// the wall time alone does not tell).
func perMessage(b *testing.B, msgs int, f func()) {
	var before, after runtime.MemStats
	cpuBefore := cpuTime(b)
	runtime.ReadMemStats(&before)
	runs := 0
	for b.Loop() {
		f()
		runs++
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(runs)/float64(msgs), "allocs/msg")
	b.ReportMetric(float64((cpuTime(b)-cpuBefore).Microseconds())/1000/float64(runs), "cpu-ms/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

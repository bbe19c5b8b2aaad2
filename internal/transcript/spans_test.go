package transcript_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// encodeEach is the list encoded one message at a time, each by its own
// AppendJSON: what the span path must write byte for byte.
func encodeEach(msgs []*transcript.Message) []byte {
	out := []byte{'['}
	for i, m := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		out = m.AppendJSON(out)
	}
	return append(out, ']')
}

// randomEdit makes one edit a rule could make to tr: a member set (to a
// new value or back to its own), deleted, a block edited, the blocks
// replaced, a message dropped, inserted, moved or replaced, or the whole
// list cut.
func randomEdit(rng *rand.Rand, tr *transcript.Transcript) {
	msgs := tr.Messages
	if len(msgs) == 0 {
		return
	}
	i := rng.IntN(len(msgs))
	m := msgs[i]
	switch rng.IntN(9) {
	case 0:
		m.Set("edited", transcript.JSONInt(int64(i)))
	case 1:
		if v, ok := m.Get("role"); ok {
			m.Set("role", bytes.Clone(v)) // the same bytes: no change
		}
	case 2:
		m.Delete("timestamp")
	case 3:
		if blocks, _ := m.Blocks(); len(blocks) > 0 && blocks[0].IsObject() {
			blocks[0].Set("edited", []byte("true"))
		}
	case 4:
		if blocks, ok := m.Blocks(); ok && len(blocks) > 1 {
			m.SetBlocks(blocks[1:])
		}
	case 5:
		tr.Messages = append(msgs[:i:i], msgs[i+1:]...)
	case 6:
		added := transcript.NewMessage(transcript.Field{Key: "role", Value: transcript.JSONString("user")}, transcript.Field{Key: "content", Value: transcript.JSONString("continue")})
		tr.Messages = append(msgs[:i:i], append([]*transcript.Message{added}, msgs[i:]...)...)
	case 7:
		j := rng.IntN(len(msgs))
		msgs[i], msgs[j] = msgs[j], msgs[i]
	case 8:
		tr.Messages = msgs[:i]
	}
}

// checkSpans fails unless the list written in spans (MessagesJSON, the
// payload in one part and in k parts) is the per-message encoding, and
// the payload written straight (AppendPayloadSized) is the one encoded,
// its report given the list's size.
func checkSpans(t *testing.T, what string, tr *transcript.Transcript, run func(int, func(int))) {
	t.Helper()
	want := encodeEach(tr.Messages)
	if got := tr.MessagesJSON(); !bytes.Equal(got, want) {
		t.Fatalf("%s: MessagesJSON differs from the per-message encoding:\n%s\n%s", what, got, want)
	}
	if got := tr.MessagesSize(); got != len(want) {
		t.Fatalf("%s: MessagesSize %d, the list is %d bytes", what, got, len(want))
	}
	payload := tr.EncodePayload(nil, nil)
	if !bytes.Contains(payload, append([]byte(`"messages":`), want...)) {
		t.Fatalf("%s: the payload does not hold the per-message list", what)
	}
	if got := tr.AppendPayloadSized(nil, func(dst []byte, _ int) []byte { return dst }); !bytes.Equal(got, payload) {
		t.Fatalf("%s: the payload written straight differs from the encoded one:\n%s\n%s", what, got, payload)
	}
	report := func(dst []byte, listSize int) []byte { return fmt.Appendf(dst, `{"bytes_out":%d}`, listSize) }
	if got := tr.AppendPayloadSized(nil, report); !bytes.Equal(got, tr.EncodePayload(nil, report(nil, len(want)))) {
		t.Fatalf("%s: the payload written straight, with its report, differs from the encoded one", what)
	}
	for _, k := range []int{2, 3, 7} {
		got := tr.AppendPayload(nil, tr.EncodeMessages(transcript.Parallel{Chunks: k, Run: run}), nil)
		if !bytes.Equal(got, payload) {
			t.Fatalf("%s, %d parts: the payload differs from the sequential one", what, k)
		}
		var written bytes.Buffer
		if err := tr.WritePayload(&written, tr.EncodeMessages(transcript.Parallel{Chunks: k, Run: run}), nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(written.Bytes(), payload) {
			t.Fatalf("%s, %d parts: the payload written differs from the one appended:\n%s\n%s", what, k, written.Bytes(), payload)
		}
	}
}

// TestSpansMatchPerMessage holds the span path to the per-message path on
// sessiongen histories (damaged, clean, and RealShapes of every API), as
// decoded (an untouched job: one span) and after random edits, and on a
// history whose separators are not the output's (space after commas).
func TestSpansMatchPerMessage(t *testing.T) {
	pool := fanout.New(7, 1)
	rng := rand.New(rand.NewPCG(22, 3))
	var histories [][]byte
	for seed := range uint64(6) {
		for _, d := range []sessiongen.Damage{sessiongen.Heavy(), {}} {
			histories = append(histories, sessiongen.New(sessiongen.Config{Seed: seed, Messages: 40 + int(seed)*30, ToolCallDensity: 0.5, Damage: d,
				TextChars: 60, ToolResultChars: 120, Target: chatTarget}).History())
		}
	}
	for i, tg := range sessiongen.RealAPIs {
		histories = append(histories, sessiongen.RealShapes(sessiongen.RealConfig{Seed: uint64(i), Target: tg, Foreign: true, StandIns: true, ExtraRoles: true}).History())
	}
	spaced := bytes.ReplaceAll(histories[0], []byte(`},{"`), []byte(`}, {"`))
	histories = append(histories, spaced, []byte(`[]`), []byte(` [ {"role":"user","content":"a"} , null,"x",{"role":"user","content":"b"}] `))
	for h, history := range histories {
		for round := range 8 {
			tr, err := transcript.FromMessages(history, chatTarget)
			if err != nil {
				t.Fatalf("history %d: %v", h, err)
			}
			for range round * round {
				randomEdit(rng, tr)
			}
			checkSpans(t, fmt.Sprintf("history %d, %d edits", h, round*round), tr, pool.Run)
		}
	}
}

// TestUntouchedListIsItsInput: a job no rule changed writes its message
// array as the input's bytes.
func TestUntouchedListIsItsInput(t *testing.T) {
	history := sessiongen.RealShapes(sessiongen.RealConfig{Seed: 7, Target: sessiongen.RealAPIs[0], StandIns: true}).History()
	tr, err := transcript.FromMessages(history, chatTarget)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.MessagesJSON(); !bytes.Equal(got, history) {
		t.Fatalf("the untouched list differs from its input:\n%s\n%s", got, history)
	}
}

// failingWriter takes n bytes, then fails every write.
type failingWriter struct{ n int }

var errWriteFailed = errors.New("disk full")

func (w *failingWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		return w.n, errWriteFailed
	}
	w.n -= len(b)
	return len(b), nil
}

// TestWritePayloadStopsAtTheFirstError holds WritePayload to its writer's
// error wherever the payload is cut: before the messages, inside them (a
// history longer than the stream's buffer, written partly from the input
// itself) and after them.
func TestWritePayloadStopsAtTheFirstError(t *testing.T) {
	_, job := sessiongen.New(sessiongen.Config{Seed: 31, Messages: 3000, Damage: sessiongen.Realistic()}).Job(0)
	tr, err := transcript.DecodeJob(job, transcript.Limits{MaxBytes: 1 << 30, MaxMessages: 1 << 20, MaxDepth: 64})
	if err != nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	if err := tr.WritePayload(&whole, tr.EncodeMessages(transcript.Parallel{}), nil); err != nil {
		t.Fatal(err)
	}
	if whole.Len() < 1<<20 {
		t.Fatalf("the history's payload is %d bytes, too short to reach past the stream's buffer", whole.Len())
	}
	for _, n := range []int{0, 100, whole.Len() / 2, whole.Len() - 2} {
		if err := tr.WritePayload(&failingWriter{n: n}, tr.EncodeMessages(transcript.Parallel{}), nil); !errors.Is(err, errWriteFailed) {
			t.Errorf("cut after %d of %d bytes: error %v, want the writer's", n, whole.Len(), err)
		}
	}
}

// TestWritePayloadHoldsNoChangedMessages: WritePayload encodes each changed
// message into its stream buffer as it writes it; nothing holds the changed
// messages' encodings (about the input's size in a damaged history) beside
// it. What EncodeMessages and WritePayload allocate for a history whose
// every message changed is the buffer and an index per message, well under
// a tenth of the payload.
func TestWritePayloadHoldsNoChangedMessages(t *testing.T) {
	_, job := sessiongen.New(sessiongen.Config{Seed: 31, Messages: 20000, Damage: sessiongen.Realistic()}).Job(0)
	tr, err := transcript.DecodeJob(job, transcript.Limits{MaxBytes: 1 << 30, MaxMessages: 1 << 20, MaxDepth: 64})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range tr.Messages {
		if m.IsObject() {
			m.SetString("role", m.Role())
			m.Set("n", []byte("1"))
		}
	}
	var n countingWriter
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := tr.WritePayload(&n, tr.EncodeMessages(transcript.Parallel{}), nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(n)/10 {
		t.Fatalf("writing a %d-byte payload allocated %d bytes", n, allocated)
	}
	if int(n) < len(job) {
		t.Fatalf("a %d-byte payload of a %d-byte job", n, len(job))
	}
}

// countingWriter counts what is written to it.
type countingWriter int

func (c *countingWriter) Write(b []byte) (int, error) {
	*c += countingWriter(len(b))
	return len(b), nil
}

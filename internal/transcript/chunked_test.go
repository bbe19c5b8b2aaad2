package transcript

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// goRun runs every chunk on its own goroutine, a Parallel.Run with no
// bound: the most interleaving the race detector can see.
func goRun(k int, f func(chunk int)) {
	var wg sync.WaitGroup
	for c := range k {
		wg.Go(func() { f(c) })
	}
	wg.Wait()
}

// sameDecode fails unless decoding data in k parts gives exactly the
// sequential decode: the same transcript (every message, member and block,
// and the invalid-text marks), or an error with the same code and text.
func sameDecode(t *testing.T, data []byte, lim Limits, k int) {
	t.Helper()
	want, wantErr := DecodeJob(data, lim)
	got, gotErr := DecodeJobParallel(data, lim, Parallel{Chunks: k, Run: goRun})
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%d parts: error %v, sequential %v", k, gotErr, wantErr)
	}
	if wantErr != nil {
		if gotErr.Error() != wantErr.Error() || ErrorCode(gotErr) != ErrorCode(wantErr) {
			t.Fatalf("%d parts: error %q (%s), sequential %q (%s)", k, gotErr, ErrorCode(gotErr), wantErr, ErrorCode(wantErr))
		}
		return
	}
	if err := sameTranscript(got, want); err != nil {
		t.Fatalf("%d parts: the transcript differs from the sequential decode: %v", k, err)
	}
	sameEncode(t, got, k)
}

// sameEncode edits some messages of tr (a real change, a change undone, a
// block edited), then fails unless the payload encoded in k parts is the
// sequential one byte for byte, and its message list is the measured size.
func sameEncode(t *testing.T, tr *Transcript, k int) {
	t.Helper()
	for i, m := range tr.Messages {
		if !m.IsObject() {
			continue
		}
		switch i % 4 {
		case 1:
			m.Set("edited", JSONInt(int64(i)))
		case 2:
			m.Set("undone", []byte("1"))
			m.Delete("undone")
		case 3:
			if blocks, _ := m.Blocks(); len(blocks) > 0 && blocks[0].IsObject() {
				blocks[0].Set("edited", []byte("true"))
			}
		}
	}
	report := []byte(`{"changed":true}`)
	want := tr.EncodePayload(nil, report)
	msgs := tr.EncodeMessages(Parallel{Chunks: k, Run: goRun})
	got := tr.AppendPayload([]byte("prefix"), msgs, report)
	if !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("%d parts: the payload differs from the sequential encode:\n%s\n%s", k, got[len("prefix"):], want)
	}
	if list := tr.MessagesJSON(); msgs.Size() != len(list) || !bytes.Contains(want, list) {
		t.Fatalf("%d parts: measured %d bytes, the list is %d", k, msgs.Size(), len(list))
	}
}

// nestedRoleJob is a job whose messages each hold objects that look like
// messages (a first key "role" after a comma) inside their content and a
// tool input, so most cuts land inside a message.
func nestedRoleJob(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"p"},"messages":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n ")
		}
		fmt.Fprintf(&b, `{"role":"assistant","content":[{"type":"text","text":"t%d"}, {"role":"nested","x":[1,{"role":"deeper"}]},`+
			`{"type":"toolCall","id":"c%d","name":"n","arguments":{"history":[{"a":1},{"role":"user","content":"%s"}]}}]}`, i, i, strings.Repeat("ab\\\"role\\\"", i%7))
	}
	b.WriteString(`],"options":{"render":"messages"}}`)
	return []byte(b.String())
}

// TestChunkedDecodeRecoversFromWrongCuts checks the speculation on a job
// where most cuts are nested objects: some cut must be wrong, and the decode
// must still equal the sequential one, for every number of parts.
func TestChunkedDecodeRecoversFromWrongCuts(t *testing.T) {
	data := nestedRoleJob(60)
	first := bytes.Index(data, []byte(`[{"role"`)) + 1
	tr, err := DecodeJob(data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	boundary := map[int]bool{}
	for _, m := range tr.Messages {
		boundary[bytes.Index(data, m.Raw())] = true // every message differs: its first match is itself
	}
	wrong := 0
	for k := 2; k <= 16; k++ {
		for _, cut := range jsontape.MessageCuts(data, first, k) {
			if !boundary[cut] {
				wrong++
			}
		}
		sameDecode(t, data, Limits{}, k)
	}
	if wrong == 0 {
		t.Fatal("no cut was wrong: the test does not exercise the recovery")
	}
}

// TestChunkedDecodeKeepsEveryError checks errors and limits met in any part:
// syntax errors, too deep a nesting, too many messages, an array that ends
// early, trailing members after the array, and input that stops mid-way.
func TestChunkedDecodeKeepsEveryError(t *testing.T) {
	good := nestedRoleJob(40)
	cases := map[string][]byte{
		"late syntax error":  bytes.Replace(good, []byte(`"t35"`), []byte(`"t35`), 1),
		"early syntax error": bytes.Replace(good, []byte(`"t1"`), []byte(`t1"`), 1),
		"two errors":         bytes.Replace(bytes.Replace(good, []byte(`"t3"`), []byte(`"t3`), 1), []byte(`"t30"`), []byte(`"t30`), 1),
		"bad separator":      bytes.Replace(good, []byte("}]},\n "), []byte("}]}:\n "), 1),
		"deep":               bytes.Replace(good, []byte(`{"role":"deeper"}`), []byte(`[[[[[[[[[[]]]]]]]]]]`), 1),
		"unknown field":      bytes.Replace(good, []byte(`"options"`), []byte(`"optionz"`), 1),
		"array ends early":   bytes.Replace(good, []byte("}]},\n "), []byte("}]}],\"x\":["), 1),
		"bad invalid text":   bytes.Replace(good, []byte(`"t20"`), []byte("\"t\xff\""), 1),
	}
	for n := len(good) - 1; n > len(good)-400; n -= 37 {
		cases[fmt.Sprintf("cut at %d", n)] = good[:n]
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			for _, lim := range []Limits{{}, {MaxDepth: 8}, {MaxMessages: 39}} {
				for k := 2; k <= 9; k++ {
					sameDecode(t, data, lim, k)
				}
			}
		})
	}
}

// FuzzDecodeJobParallel holds the chunked decode to the sequential one on
// arbitrary input, in 2 to 9 parts: the same transcript or the same error.
func FuzzDecodeJobParallel(f *testing.F) {
	f.Add([]byte(cleanJob), uint8(2))
	f.Add(nestedRoleJob(5), uint8(3))
	f.Add([]byte(`{"job_id":"j","tenant":"t","session_id":"s","target":{"api":"x"},"messages":[{"role":"a"} , {"role":"b"},{"role":"c"}]}`), uint8(7))
	f.Add([]byte(`{"messages":[{"role":1},{"role":[{"role":2},{"role":3}]},{"role":4}],"job_id":"j"}`), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		sameDecode(t, data, Limits{MaxDepth: 16, MaxMessages: 100}, 2+int(k%8))
	})
}

package contract

import (
	"reflect"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// writeOps are the writes a rule makes to a message, each given a raw
// value: a member set, a block's member set, a block added, the content
// replaced, and a member copied from the message before it (bytes of the
// input, but of another message, which may hold invalid text).
var writeOps = []func(msgs []*transcript.Message, i int, val []byte){
	func(msgs []*transcript.Message, i int, val []byte) { msgs[i].Set("x", val) },
	func(msgs []*transcript.Message, i int, val []byte) {
		if blocks, _ := msgs[i].Blocks(); len(blocks) > 0 {
			blocks[0].Set("text", val)
		}
	},
	func(msgs []*transcript.Message, i int, val []byte) {
		blocks, _ := msgs[i].Blocks()
		msgs[i].SetBlocks(append(blocks[:len(blocks):len(blocks)], transcript.NewBlock(transcript.Field{Key: "type", Value: []byte(`"text"`)}, transcript.Field{Key: "text", Value: val})))
	},
	func(msgs []*transcript.Message, i int, val []byte) { msgs[i].Set("content", val) },
	func(msgs []*transcript.Message, i int, val []byte) {
		if i > 0 {
			v, _ := msgs[i-1].Get("content")
			msgs[i].Set("y", v)
		}
	},
}

// checkWrittenAgrees applies op with val to every message of history the
// codec vouched for and holds checkWritten to checkText over the
// message's whole encoding; it returns the violations found.
func checkWrittenAgrees(t *testing.T, history, val []byte, op int) []Violation {
	t.Helper()
	tr, err := transcript.FromMessages(history, transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "m"})
	if err != nil {
		return nil
	}
	var found []Violation
	for i, m := range tr.Messages {
		if !m.IsObject() || m.HasInvalidText() {
			continue
		}
		writeOps[op%len(writeOps)](tr.Messages, i, val)
		if !m.Changed() {
			continue
		}
		raw := m.AppendJSON(nil)
		if n := m.EncodedLen(); n != len(raw) {
			t.Fatalf("messages[%d] %s: EncodedLen %d, encoded %d bytes", i, raw, n, len(raw))
		}
		var whole, written Result
		checkText(&whole, i, raw)
		if !checkWritten(&written, i, m) {
			checkText(&written, i, raw)
		}
		if !reflect.DeepEqual(whole, written) {
			t.Fatalf("messages[%d] %s: checkText %v, checkWritten %v", i, raw, whole.Violations, written.Violations)
		}
		found = append(found, written.Violations...)
	}
	return found
}

// TestCheckWritten: the text check of a changed message reads only what
// the rules wrote, and finds what a check of its whole encoding finds,
// whichever write put invalid text there, a copy of another message's
// bytes included.
func TestCheckWritten(t *testing.T) {
	const history = `[{"role":"user","content":"lone \ud83d here"},{"role":"assistant","content":[{"type":"text","text":"ok \ud83d\ude00"}]},{"role":"user","content":"fine"}]`
	for _, c := range []struct {
		name string
		val  string
		op   int
		want int // text_validity violations over the vouched messages
	}{
		{"member valid", `"fine"`, 0, 0},
		{"member lone", `"x \udc00"`, 0, 2},
		{"member bad UTF-8", "\"x \xff\"", 0, 2},
		{"member both", "\"\xff \\ud83d\"", 0, 4},
		{"block text lone", `"\ud83d"`, 1, 1},
		{"block added lone", `"\ud83d"`, 2, 2},
		{"block added valid", `"\ud83d\ude00"`, 2, 0},
		{"content replaced", `[{"type":"text","text":"\udc00"}]`, 3, 2},
		{"content string", `"\\ud83d"`, 3, 0},
		{"copied from a marked message", `""`, 4, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := len(checkWrittenAgrees(t, []byte(history), []byte(c.val), c.op)); got != c.want {
				t.Errorf("%d violations, want %d", got, c.want)
			}
		})
	}
}

// FuzzCheckWritten holds checkWritten to checkText over a history and a
// write of any bytes.
func FuzzCheckWritten(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":"lone \ud83d"},{"role":"assistant","content":[{"type":"text","text":"ok"}]}]`), []byte(`"\udc00"`), uint8(0))
	f.Add([]byte(`[{"role":"user","content":[{"type":"text","text":"a"}]}]`), []byte("\"\xff\""), uint8(1))
	f.Add([]byte(`[{"role":"user","content":"\\ud83d"},{"role":"user","content":"x"}]`), []byte(`[{"type":"text","text":"\\\ud83d"}]`), uint8(3))
	f.Add([]byte(`[{"role":"user","content":"bad"},{"role":"assistant","content":"x"}]`), []byte(`"a"`), uint8(4))
	f.Fuzz(func(t *testing.T, history, val []byte, op uint8) {
		checkWrittenAgrees(t, history, val, int(op))
	})
}

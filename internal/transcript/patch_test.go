package transcript

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
)

// patchWrites are sequences of writes whose first one replaces a member
// the tape has (a patch), each given that member's name and a raw value:
// alone, twice, then another member written, deleted or repaired.
var patchWrites = map[string]func(n *node, m *Message, key string, val []byte){
	"set":       func(n *node, m *Message, key string, val []byte) { n.Set(key, val) },
	"set twice": func(n *node, m *Message, key string, val []byte) { n.Set(key, []byte(`"first"`)); n.Set(key, val) },
	"set back": func(n *node, m *Message, key string, val []byte) {
		old, _ := n.Get(key)
		n.Set(key, val)
		n.Set(key, old)
	},
	"set, set another": func(n *node, m *Message, key string, val []byte) { n.Set(key, val); n.Set("other", []byte(`1`)) },
	"set, delete it":   func(n *node, m *Message, key string, val []byte) { n.Set(key, val); n.Delete(key) },
	"set, delete the first": func(n *node, m *Message, key string, val []byte) {
		n.Set(key, val)
		k, _ := n.member(0)
		n.Delete(k)
	},
	"set, repair": func(n *node, m *Message, key string, val []byte) { n.Set(key, val); m.RepairText() },
}

// TestPatchReadsAsACopy: a value whose one member a write replaced (a
// patch, which keeps only that member) reads, encodes, sizes and reports
// its written values as the same value whose members were copied before
// the write, for every member of every message and block, duplicate and
// escaped names, spaced input and invalid text included. The ids are of
// the shapes and lengths real runtimes write (docs/real-shapes.md): the
// pi-ai Responses pair (83 bytes, past the string memo's 64) and Anthropic's.
func TestPatchReadsAsACopy(t *testing.T) {
	messages := []string{
		`{"role":"toolResult","toolCallId":"call_aEhWzjRci8hIoTWijVcQdioI|fc_ed6230ca66acb766d115b464c02e66db6a7f18a9acfa639592","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":1}`,
		`{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01lmb6YMxS9gQzs6tP14mhDm","name":"read","arguments":{"p":"a"}},{"type":"text","text":"a"}],"usage":{"input":1},"stopReason":"toolUse"}`,
		"{ \"role\" : \"user\" , \"content\" : [ { \"type\" : \"text\" , \"text\" : \"a\" } ] , \"n\" : 1 }",
		`{"r\u006fle":"user","role":"assistant","content":[{"type":"text","type":"image","text":"\u00e9"}],"k\"q":1,"role":"x"}`,
		"{\"role\":\"user\xff\",\"content\":[{\"type\":\"text\",\"text\":\"b\xfe\"}],\"t\":\"\xfd\"}",
	}
	vals := []string{`"v"`, `"toolu_01ZvCzYdJThrg3Oh9mmvkT2j"`, `[{"type":"text","text":"y"}]`, `{"input":0,"output":0}`, `"x\u00e9"`, `null`}
	for _, raw := range messages {
		for name, write := range patchWrites {
			for _, val := range vals {
				keys := fieldsOf(&messageFromRaw([]byte(raw)).members)
				for _, f := range keys {
					checkPatch(t, raw, name, write, f.Key, []byte(val), -1)
				}
				blocks, _ := messageFromRaw([]byte(raw)).Blocks()
				for j, b := range blocks {
					for _, f := range fieldsOf(&b.node) {
						checkPatch(t, raw, name, write, f.Key, []byte(val), j)
					}
				}
			}
		}
	}
}

// checkPatch applies write to member key of message raw (block j of it, or
// the message itself when j < 0), once on a value read from the tape and
// once on a value whose members were copied first, and compares them.
func checkPatch(t *testing.T, raw, name string, write func(*node, *Message, string, []byte), key string, val []byte, j int) {
	t.Helper()
	patched, copied := messageFromRaw([]byte(raw)), messageFromRaw([]byte(raw))
	target := func(m *Message, own bool) *node {
		n := &m.members
		if j >= 0 {
			blocks, _ := m.Blocks()
			n = &blocks[j].node
		}
		if own {
			n.own()
		}
		return n
	}
	write(target(patched, false), patched, key, val)
	write(target(copied, true), copied, key, val)
	if got, want := observe(patched), observe(copied); got != want {
		t.Fatalf("%s %q = %s (block %d) of %s: patched\n%s\ncopied\n%s", name, key, val, j, raw, got, want)
	}
	if got, want := kinds(patched, j >= 0), kinds(messageFromRaw(patched.AppendJSON(nil)), j >= 0); got != want {
		t.Fatalf("%s %q = %s (block %d) of %s: the kinds kept are\n%s\nthe encoding's are\n%s", name, key, val, j, raw, got, want)
	}
}

// kinds is what a message's view keeps of it beside its members: its role,
// its stop reason and, with types, its blocks' types (a write of the
// content member through its node, as these writes do, leaves the blocks
// as they were: Message.Set reloads them).
func kinds(m *Message, types bool) string {
	out := fmt.Sprintf("role %q stop %q", m.Role(), m.StopReason())
	blocks, _ := m.Blocks()
	for _, b := range blocks {
		if types {
			out += fmt.Sprintf(" type %q", b.Type())
		}
	}
	return out
}

// observe is everything a reader sees of a message (describe), its
// encoding, its size, the values it reports written and its facts.
func observe(m *Message) string {
	var written []string
	m.EachWritten(func(v []byte) { written = append(written, string(v)) })
	return fmt.Sprintf("%s\nencoding %s\nlen %d\nwritten %q\nfacts %v", describe(m), m.AppendJSON(nil), m.EncodedLen(), written, m.Facts())
}

// A write of one member of a long history's message or block (a tool call
// or result id, usage) holds that member, not a copy of all of them: at
// most 96 bytes per edited value, where a copy of the members took 384.
func TestOneMemberEditHoldsOneMember(t *testing.T) {
	const n = 2000
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"assistant","content":[{"type":"toolCall","id":"call_%024x","name":"read","arguments":{}}],"api":"openai-completions","provider":"openai","model":"gpt-5","usage":{"input":%d},"stopReason":"toolUse","timestamp":%d},`, i, i, i)
		fmt.Fprintf(&b, `{"role":"toolResult","toolCallId":"call_%024x","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":%d}`, i, i)
	}
	b.WriteByte(']')
	id, usage := []byte(`"call_f1f8bf13f4f08ffb703c9e51"`), []byte(`{"input":0}`)
	// The heap's byte count is the process's: a goroutine an earlier test
	// left running may allocate during the edits (CI once read 97 bytes an
	// edit where a quiet run reads 95.98). The least of three runs is the
	// edits' own.
	least := math.Inf(1)
	var tr *Transcript
	for range 3 {
		var err error
		if tr, err = FromMessages([]byte(b.String()), Target{}); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, m := range tr.Messages {
			if blocks, _ := m.Blocks(); m.Role() == "assistant" {
				blocks[0].Set("id", id)
				m.Set("usage", usage)
			} else {
				m.Set("toolCallId", id)
			}
		}
		runtime.ReadMemStats(&after)
		least = min(least, float64(after.TotalAlloc-before.TotalAlloc)/float64(3*n))
	}
	if least > 96 {
		t.Fatalf("%.0f bytes held per one-member edit (the least of three runs), want at most 96", least)
	}
	for _, m := range tr.Messages[:2] {
		if !m.Changed() || !strings.Contains(string(m.AppendJSON(nil)), string(id)) {
			t.Fatalf("the edit is not in the encoding: %s", m.AppendJSON(nil))
		}
	}
}

// Changed compares an edited message's content with its input bytes
// without keeping the encoding: asking every message of a long history
// allocates nothing once the scratch buffer is warm (a new buffer per call
// was garbage the size of every edited content), and the answers stay
// those of the encoding.
func TestChangedKeepsNoEncoding(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector's sync.Pool drops buffers at random")
	}
	const n = 500
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"assistant","content":[{"type":"text","text":"step %d of the plan, with some words"},{"type":"toolCall","id":"call_%024x","name":"read","arguments":{"path":"/tmp/%d"}}],"timestamp":%d}`, i, i, i, i)
	}
	b.WriteByte(']')
	tr, err := FromMessages([]byte(b.String()), Target{})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range tr.Messages {
		blocks, _ := m.Blocks()
		switch i % 3 {
		case 0: // a real edit
			blocks[1].Set("id", []byte(`"call_0"`))
		case 1: // an edit back to the same bytes: no change
			raw, _ := blocks[1].Get("id")
			blocks[1].Set("id", append([]byte(nil), raw...))
		}
	}
	want := func(i int) bool { return i%3 == 0 }
	for i, m := range tr.Messages {
		if m.Changed() != want(i) {
			t.Fatalf("message %d: Changed() = %v, want %v: %s", i, m.Changed(), want(i), m.AppendJSON(nil))
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	changed := 0
	for _, m := range tr.Messages {
		if m.Changed() {
			changed++
		}
	}
	runtime.ReadMemStats(&after)
	if changed != (n+2)/3 {
		t.Fatalf("%d messages changed, want %d", changed, (n+2)/3)
	}
	if per := float64(after.TotalAlloc-before.TotalAlloc) / n; per > 8 {
		t.Fatalf("Changed allocated %.0f bytes per message, want none", per)
	}
}

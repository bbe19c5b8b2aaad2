package transcript

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// TestKeyNamesArePlain: memberKeyLen counts a key the tape knows by number
// as its bytes and two quotes, which holds only while every KeyNames entry
// is written by AppendString as it is.
func TestKeyNamesArePlain(t *testing.T) {
	for _, k := range jsontape.KeyNames[1:] {
		if got, want := len(AppendString(nil, k)), len(k)+2; got != want {
			t.Errorf("key name %q encodes to %d bytes, not %d", k, got, want)
		}
	}
}

// TestAppendMemberKey: every member key of a decoded message and its
// blocks, numbered or not, escaped or not, and of a message a rule edited
// or built, is written as AppendString writes it, and its length is
// memberKeyLen's.
func TestAppendMemberKey(t *testing.T) {
	job := `{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"openai","api":"openai-completions","model":"gpt-4.1"},"messages":[` +
		`{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"/"},"we\"ird":1,"\u0001x":2,"\u0074ype":"x"}],"usage":{"input":1},"ünïcode":true,"\u2028":0},` +
		`{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"x-extra":null}]}`
	tr, err := DecodeJob([]byte(job), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, n *node) {
		t.Helper()
		for i := range n.memberCount() {
			key, _ := n.member(i)
			want := AppendString(nil, key)
			if got := n.appendMemberKey(nil, i, key); string(got) != string(want) {
				t.Errorf("%s, member %d: appendMemberKey %s, AppendString %s", what, i, got, want)
			}
			if got := n.memberKeyLen(i, key); got != len(want) {
				t.Errorf("%s, member %d %s: memberKeyLen %d, want %d", what, i, want, got, len(want))
			}
		}
	}
	tr.Messages[1].Set("x-extra", []byte(`"patched"`))
	built := NewMessage(Field{Key: "role", Value: []byte(`"user"`)}, Field{Key: "we\"ird", Value: []byte(`1`)})
	for mi, m := range append(tr.Messages, built) {
		check("message "+m.Role(), &m.members)
		blocks, _ := m.Blocks()
		for bi, b := range blocks {
			check("block "+string(rune('0'+mi))+"."+string(rune('0'+bi)), &b.node)
		}
	}
}

package transcript

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// messageFromRaw decodes one message as the decoding pass does.
func messageFromRaw(raw []byte) *Message {
	tr, err := FromMessages(append(append([]byte{'['}, raw...), ']'), Target{})
	if err != nil || len(tr.Messages) != 1 {
		panic(fmt.Sprintf("%s: %v", raw, err))
	}
	return tr.Messages[0]
}

// parsedTwin is the message parsed from its bytes as a rule's raw write is
// (ParseObject, ParseArray), with no tape: what every read of a message
// from the tape must equal.
func parsedTwin(m *Message) *Message {
	raw := m.Raw()
	obj, err := ParseObject(raw)
	twin := &Message{members: node{ov: &overlay{raw: raw, obj: obj, isObject: err == nil}}, invalidText: m.invalidText}
	twin.loadContent()
	return twin
}

// fieldsOf returns a node's members as a reader sees them, whether they are
// read from the tape or held by an overlay.
func fieldsOf(n *node) []Field {
	if n.ov != nil {
		return append([]Field{}, n.ov.obj.Fields...)
	}
	fields := []Field{}
	if !n.IsObject() {
		return fields
	}
	for _, m := range n.t.MemberOf(n.tapeNode()) {
		fields = append(fields, Field{Key: n.t.Key(&m), Value: n.t.Value(&m)})
	}
	return fields
}

// describe is everything a reader can see of a message: its bytes, its
// members, its blocks and theirs, its invalid-text mark, its kind members.
func describe(m *Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "raw %q object %v invalid %v role %q type %q changed %v\n", m.Raw(), m.IsObject(), m.HasInvalidText(), m.Role(), m.Type(), m.Changed())
	for _, f := range fieldsOf(&m.members) {
		fmt.Fprintf(&b, "  %q: %s\n", f.Key, f.Value)
	}
	blocks, isArray := m.Blocks()
	fmt.Fprintf(&b, "  array %v, %d blocks\n", isArray, len(blocks))
	for _, blk := range blocks {
		fmt.Fprintf(&b, "  block %q object %v type %q changed %v\n", blk.Raw(), blk.IsObject(), blk.Type(), blk.Changed())
		for _, f := range fieldsOf(&blk.node) {
			fmt.Fprintf(&b, "    %q: %s\n", f.Key, f.Value)
		}
	}
	return b.String()
}

// sameTranscript reports what differs between two decodes of one input:
// the envelope and every message as a reader sees it.
func sameTranscript(a, b *Transcript) error {
	ea, eb := *a, *b
	ea.Messages, eb.Messages = nil, nil
	if !reflect.DeepEqual(ea, eb) {
		return fmt.Errorf("envelopes differ: %+v, %+v", ea, eb)
	}
	if len(a.Messages) != len(b.Messages) {
		return fmt.Errorf("%d messages, %d", len(a.Messages), len(b.Messages))
	}
	for i := range a.Messages {
		if da, db := describe(a.Messages[i]), describe(b.Messages[i]); da != db {
			return fmt.Errorf("message %d:\n%s\nvs\n%s", i, da, db)
		}
	}
	return nil
}

// checkSameStructure fails when a message read from the tape differs from
// the same bytes parsed with no tape: members, content blocks, and each
// block's members.
func checkSameStructure(t *testing.T, msgs []*Message) {
	t.Helper()
	for k, m := range msgs {
		if got, want := describe(m), describe(parsedTwin(m)); got != want {
			t.Fatalf("message %d: from the tape\n%s\nparsed\n%s", k, got, want)
		}
	}
}

func TestDecodingPassSplitsLikeTheParse(t *testing.T) {
	for _, messages := range []string{
		`[]`,
		`[{"role":"user","content":"hi"},{"role":"assistant","content":[]}]`,
		`[{"role":"assistant","content":[{"type":"text","text":"a\"b"},"x",null,{"type":"tool_use","input":{"a":[1,{"b":2}]}}]}]`,
		`[{"content":"first","content":[{"type":"text","text":"second"}]}]`,
		`[{"content":[{"type":"text"}],"content":"second"}]`,
		`[{"ro\u006ce":"user","role":"assistant","content":[{}]}, "not an object", 3, [1,2]]`,
		`[{"role":"user","content":[{"type":"text","text":"caf\u00e9 \ud800 bad ` + "\xff" + `"}]}]`,
		`[ {"role" : "user" , "content" : [ {"type" : "te\u0078t" , "text" : "x\ny"} ] } , {"type":"t","role":"r"} ]`,
	} {
		tr, err := FromMessages([]byte(messages), Target{})
		if err != nil {
			t.Fatalf("%s: %v", messages, err)
		}
		checkSameStructure(t, tr.Messages)
	}
}

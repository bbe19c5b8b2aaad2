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
	fields := []Field{}
	if !n.IsObject() {
		return fields
	}
	for i := range n.memberCount() {
		key, value := n.member(i)
		fields = append(fields, Field{Key: key, Value: value})
	}
	return fields
}

// lookups describes what Get and String return for each key of fields,
// and for a few common keys that may be absent: by key number on the tape
// (jsontape.KeyNames), by bytes otherwise.
func lookups(b *strings.Builder, n *node, fields []Field) {
	keys := []string{"role", "type", "text", "id", "toolCallId", "not a common key"}
	for _, f := range fields {
		keys = append(keys, f.Key)
	}
	for _, k := range keys {
		raw, ok := n.Get(k)
		s, sok := n.String(k)
		size, zok := n.StringSize(k)
		fmt.Fprintf(b, "  get %q: %s %v %q %v size %d %v\n", k, raw, ok, s, sok, size, zok)
	}
}

// describe is everything a reader can see of a message: its bytes, its
// members, its blocks and theirs, its invalid-text mark, its kind members.
func describe(m *Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "raw %q object %v invalid %v role %q type %q stop %q changed %v\n", m.Raw(), m.IsObject(), m.HasInvalidText(), m.Role(), m.Type(), m.StopReason(), m.Changed())
	fields := fieldsOf(&m.members)
	for _, f := range fields {
		fmt.Fprintf(&b, "  %q: %s\n", f.Key, f.Value)
	}
	lookups(&b, &m.members, fields)
	blocks, isArray := m.Blocks()
	fmt.Fprintf(&b, "  array %v, %d blocks\n", isArray, len(blocks))
	for _, blk := range blocks {
		fmt.Fprintf(&b, "  block %q object %v type %q changed %v\n", blk.Raw(), blk.IsObject(), blk.Type(), blk.Changed())
		bfields := fieldsOf(&blk.node)
		for _, f := range bfields {
			fmt.Fprintf(&b, "    %q: %s\n", f.Key, f.Value)
		}
		lookups(&b, &blk.node, bfields)
	}
	return b.String()
}

// sameTranscript reports what differs between two decodes of one input:
// the envelope and every message as a reader sees it (its bytes, mark and
// kinds, its members, its blocks and theirs), compared without formatting:
// it runs over whole generated jobs.
func sameTranscript(a, b *Transcript) error {
	ea, eb := *a, *b
	ea.Messages, eb.Messages = nil, nil
	ea.tapes, eb.tapes = nil, nil // one per part of the decode: compared through the messages
	if !reflect.DeepEqual(ea, eb) {
		return fmt.Errorf("envelopes differ: %+v, %+v", ea, eb)
	}
	if len(a.Messages) != len(b.Messages) {
		return fmt.Errorf("%d messages, %d", len(a.Messages), len(b.Messages))
	}
	for i := range a.Messages {
		ma, mb := a.Messages[i], b.Messages[i]
		same := ma.HasInvalidText() == mb.HasInvalidText() && ma.Role() == mb.Role() && sameNode(&ma.members, &mb.members)
		ba, arrayA := ma.Blocks()
		bb, arrayB := mb.Blocks()
		same = same && arrayA == arrayB && len(ba) == len(bb)
		for j := 0; same && j < len(ba); j++ {
			same = ba[j].Type() == bb[j].Type() && sameNode(&ba[j].node, &bb[j].node)
		}
		if !same {
			return fmt.Errorf("message %d:\n%s\nvs\n%s", i, describe(ma), describe(mb))
		}
	}
	return nil
}

// sameNode reports whether two values have the same bytes and members.
func sameNode(a, b *node) bool {
	if a.IsObject() != b.IsObject() || string(a.Raw()) != string(b.Raw()) {
		return false
	}
	fa, fb := fieldsOf(a), fieldsOf(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i].Key != fb[i].Key || string(fa[i].Value) != string(fb[i].Value) {
			return false
		}
	}
	return true
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
		`[{"role":"assistant","stopReason":"toolUse"},{"role":"assistant","stopReason":"sto\u0070"},{"stopReason":"error","role":"assistant","stopReason":"stop"},{"role":"assistant","stopReason":1},{"role":"assistant","stopReason":"weird"},{"role":"assistant","stopReason":"user"},{"role":"assistant","st\u006fpReason":"length","stopReason":"aborted"},{"role":"assistant","content":[{"type":"text","stopReason":"error"}]}]`,
		`[{"role":"toolResult","t\u006f\u006fl\u0043allId":"toolu_01A09q90qw90lq917835lq9B","toolCallId":"second","not a common key":1,"content":[{"type":"text","text":"` + strings.Repeat(`line\n`, 20) + `"}]}]`,
	} {
		tr, err := FromMessages([]byte(messages), Target{})
		if err != nil {
			t.Fatalf("%s: %v", messages, err)
		}
		checkSameStructure(t, tr.Messages)
	}
}

// TestStopReasonFollowsEdits: the stop reason the decode recorded answers
// only until a rule edits the message; then the edited member does.
func TestStopReasonFollowsEdits(t *testing.T) {
	tr, err := FromMessages([]byte(`[{"role":"assistant","stopReason":"stop","content":[]},{"role":"assistant","stopReason":"length"}]`), Target{})
	if err != nil {
		t.Fatal(err)
	}
	m, other := tr.Messages[0], tr.Messages[1]
	if got := m.StopReason(); got != StopStop {
		t.Fatalf("decoded: %q, want %q", got, StopStop)
	}
	m.Set("stopReason", []byte(`"error"`))
	if got := m.StopReason(); got != StopError {
		t.Errorf("after Set: %q, want %q", got, StopError)
	}
	m.Delete("stopReason")
	if got := m.StopReason(); got != "" {
		t.Errorf("after Delete: %q, want none", got)
	}
	other.Set("model", []byte(`"m"`))
	if got := other.StopReason(); got != StopLength {
		t.Errorf("after another member's Set: %q, want %q", got, StopLength)
	}
}

// TestReadsFromManyGoroutines reads every message of one transcript from
// several goroutines at once (a chunked rule reading its neighbours): with
// -race, any read that writes shared state fails it, and every goroutine
// must see the same texts.
func TestReadsFromManyGoroutines(t *testing.T) {
	text := strings.Repeat(`a line\n`, 30)
	var msgs []string
	for i := range 64 {
		msgs = append(msgs, fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"%s %d"},{"type":"toolCall","id":"toolu_01A09q90qw90lq917835lq%02d","name":"read","arguments":{}}]}`, text, i, i))
	}
	tr, err := FromMessages([]byte("["+strings.Join(msgs, ",")+"]"), Target{})
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		var b strings.Builder
		for _, m := range tr.Messages {
			b.WriteString(m.Role())
			raw, _ := m.Get("content")
			b.Write(raw)
			blocks, _ := m.Blocks()
			for _, blk := range blocks {
				s, _ := blk.Text()
				id, _ := blk.CallID()
				b.WriteString(blk.Type() + s + id)
			}
		}
		return b.String()
	}
	got := make([]string, 4)
	goRun(len(got), func(c int) { got[c] = read() }) // the first reads of each text race to keep it
	for c, g := range got {
		if want := read(); g != want {
			t.Fatalf("goroutine %d read other values", c)
		}
	}
}

// TestReleasedTranscriptIsNotRead: once Release gave a transcript's tapes
// back, and another job was decoded onto their arrays, a message of the
// first transcript panics when read rather than read the other job's
// entries; the second transcript reads as decoded.
func TestReleasedTranscriptIsNotRead(t *testing.T) {
	tg := Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	first, err := FromMessages([]byte(`[{"role":"user","content":"first"},{"role":"assistant","content":[{"type":"text","text":"one"}]}]`), tg)
	if err != nil {
		t.Fatal(err)
	}
	m, blocks := first.Messages[0], first.Messages[1].blocks
	first.Release()
	first.Release() // a second release does nothing
	second, err := FromMessages([]byte(`[{"role":"assistant","content":"second"},{"role":"user","content":[{"type":"text","text":"two"}]}]`), tg)
	if err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(){
		"role":    func() { m.Role() },
		"content": func() { m.ContentString() },
		"raw":     func() { m.Raw() },
		"block":   func() { blocks[0].Text() },
	} {
		if !panics(read) {
			t.Errorf("%s: a read of a released transcript did not panic", name)
		}
	}
	if got := string(second.MessagesJSON()); got != `[{"role":"assistant","content":"second"},{"role":"user","content":[{"type":"text","text":"two"}]}]` {
		t.Errorf("the job decoded after a release reads %s", got)
	}
}

func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

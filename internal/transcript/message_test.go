package transcript

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// contentView is everything a reader can see of a message's content.
type contentView struct {
	str      string
	isString bool
	raw      string
	has      bool
	null     bool
	texts    []string
	isArray  bool
	encoded  string
}

// viewContent reads the content through every read accessor.
func viewContent(m *Message) contentView {
	var v contentView
	v.str, v.isString = m.ContentString()
	if s, ok := m.String("content"); ok != v.isString || s != v.str {
		panic("String(content) disagrees with ContentString")
	}
	raw, _ := m.Get("content")
	v.raw, v.has, v.null = string(raw), m.Has("content"), m.IsNull("content")
	blocks, isArray := m.Blocks()
	v.isArray = isArray
	for _, b := range blocks {
		s, _ := b.Text()
		v.texts = append(v.texts, s)
	}
	v.encoded = string(m.AppendJSON(nil))
	return v
}

// The start states of a message's content: as read from the input (string,
// array, absent) and as built by a rule.
func startMessages() map[string]func() *Message {
	return map[string]func() *Message{
		"input string": func() *Message { return messageFromRaw([]byte(`{"role":"assistant","content":"   "}`)) },
		"input array": func() *Message {
			return messageFromRaw([]byte(`{"role":"user","content":[{"type":"text","text":"old"}]}`))
		},
		"input absent": func() *Message { return messageFromRaw([]byte(`{"role":"user"}`)) },
		"input null":   func() *Message { return messageFromRaw([]byte(`{"role":"user","content":null}`)) },
		"built string": func() *Message {
			return NewMessage(Field{"role", JSONString("user")}, Field{"content", JSONString("old")})
		},
		"built no body": func() *Message { return NewMessage(Field{"role", JSONString("user")}) },
	}
}

// Every write accessor, followed by every read accessor, on every start
// state, whether or not the message was looked at before: each read sees
// the write (the trap of issue 11: after SetBlocks on a string content,
// ContentString returned the old string).
func TestContentReadsSeeEveryWrite(t *testing.T) {
	writes := []struct {
		name  string
		write func(*Message)
		want  contentView
	}{
		{"SetBlocks", func(m *Message) { m.SetBlocks([]*Block{TextBlock("real answer")}) },
			contentView{raw: `[{"type":"text","text":"real answer"}]`, has: true, texts: []string{"real answer"}, isArray: true}},
		{"SetBlocks empty", func(m *Message) { m.SetBlocks(nil) },
			contentView{raw: `[]`, has: true, isArray: true}},
		{"SetContentString", func(m *Message) { m.SetContentString("new") },
			contentView{str: "new", isString: true, raw: `"new"`, has: true}},
		{"Set content", func(m *Message) { m.Set("content", []byte(`[{"type":"text","text":"set"}]`)) },
			contentView{raw: `[{"type":"text","text":"set"}]`, has: true, texts: []string{"set"}, isArray: true}},
		{"SetString content", func(m *Message) { m.SetString("content", "s") },
			contentView{str: "s", isString: true, raw: `"s"`, has: true}},
		{"Delete content", func(m *Message) { m.Delete("content") },
			contentView{null: true}},
		{"SetBlocks then SetContentString", func(m *Message) {
			m.SetBlocks([]*Block{TextBlock("x")})
			m.SetContentString("last")
		}, contentView{str: "last", isString: true, raw: `"last"`, has: true}},
		{"SetContentString then SetBlocks", func(m *Message) {
			m.SetContentString("first")
			m.SetBlocks([]*Block{TextBlock("last")})
		}, contentView{raw: `[{"type":"text","text":"last"}]`, has: true, texts: []string{"last"}, isArray: true}},
		{"SetBlocks then block edit", func(m *Message) {
			b := TextBlock("before")
			m.SetBlocks([]*Block{b})
			_, _ = m.Get("content")
			b.SetString("text", "after")
		}, contentView{raw: `[{"type":"text","text":"after"}]`, has: true, texts: []string{"after"}, isArray: true}},
	}
	for start, build := range startMessages() {
		for _, w := range writes {
			for _, looked := range []bool{false, true} {
				m := build()
				if looked {
					viewContent(m)
				}
				w.write(m)
				got := viewContent(m)
				want := w.want
				got.encoded = ""
				if got.raw != want.raw || got.str != want.str || got.isString != want.isString || got.has != want.has ||
					got.null != want.null || got.isArray != want.isArray || !slices.Equal(got.texts, want.texts) {
					t.Errorf("%s, %s (looked before: %v):\n got %+v\nwant %+v", start, w.name, looked, got, want)
				}
				enc := string(m.AppendJSON(nil))
				if want.has && !strings.Contains(enc, `"content":`+want.raw) || !want.has && strings.Contains(enc, `"content"`) {
					t.Errorf("%s, %s: encoding %s, want content %s", start, w.name, enc, want.raw)
				}
			}
		}
	}
}

// An edit to a block read from the input is seen by every read of the
// content, without the rule doing anything more.
func TestBlockEditIsSeenByContentReads(t *testing.T) {
	m := messageFromRaw([]byte(`{"role":"user","content":[{"type":"text","text":"old"}],"k":1}`))
	blocks, _ := m.Blocks()
	blocks[0].SetString("text", "new")
	if raw, _ := m.Get("content"); string(raw) != `[{"type":"text","text":"new"}]` {
		t.Fatalf("Get(content) = %s", raw)
	}
	if got := string(m.AppendJSON(nil)); got != `{"role":"user","content":[{"type":"text","text":"new"}],"k":1}` {
		t.Fatalf("encoding %s", got)
	}
	// Reading did not change what the blocks are: a second edit is kept too.
	blocks[0].SetString("text", "newer")
	if s, _ := blocks[0].Text(); s != "newer" {
		t.Fatalf("block text %q", s)
	}
	if raw, _ := m.Get("content"); string(raw) != `[{"type":"text","text":"newer"}]` {
		t.Fatalf("Get(content) after a second edit = %s", raw)
	}
}

// Member accessors other than content see their writes too.
func TestMemberReadsSeeWrites(t *testing.T) {
	m := messageFromRaw([]byte(`{"role":"user","content":"hi","n":1}`))
	m.SetString("role", "assistant")
	m.Set("n", []byte("2"))
	m.Set("ok", []byte("true"))
	m.Delete("gone")
	if m.Role() != "assistant" {
		t.Fatalf("role %q", m.Role())
	}
	if n, _ := m.Number("n"); n != 2 {
		t.Fatalf("n = %v", n)
	}
	if ok, isBool := m.Bool("ok"); !ok || !isBool {
		t.Fatal("ok not true")
	}
	if m.Delete("n"); m.Has("n") || !m.IsNull("n") {
		t.Fatal("n still present after Delete")
	}
}

// TestKindAfterWrites: a message's role and a block's type read after a
// write (which gives the value its overlay and keeps the tape's kind
// number) are those its members now hold, whatever wrote them, duplicate
// members included (the first is the kind).
func TestKindAfterWrites(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		write     func(m *Message)
		role, typ string
	}{
		{"other member", `{"role":"assistant","content":[{"type":"text","text":"a"}]}`, func(m *Message) { m.Set("usage", []byte("{}")) }, "assistant", "text"},
		{"role set", `{"role":"assistant","content":"a"}`, func(m *Message) { m.Set("n", []byte("1")); m.SetString("role", "user") }, "user", ""},
		{"role deleted", `{"role":"assistant","role":"user","content":"a"}`, func(m *Message) { m.Set("n", []byte("1")); m.Delete("role") }, "user", ""},
		{"role deleted, none left", `{"role":"toolResult","content":"a"}`, func(m *Message) { m.Set("n", []byte("1")); m.Delete("role") }, "", ""},
		{"role not a kind", `{"role":"narrator","content":"a"}`, func(m *Message) { m.Set("n", []byte("1")) }, "narrator", ""},
		{"role repaired", "{\"role\":\"user\xff\",\"content\":\"a\"}", func(m *Message) { m.Set("n", []byte("1")); m.RepairText() }, "user\ufffd", ""},
		{"type set", `{"role":"user","content":[{"type":"text","text":"a"}]}`, func(m *Message) {
			b, _ := m.Blocks()
			b[0].SetString("text", "b")
			b[0].SetString("type", "thinking")
		}, "user", "thinking"},
		{"type deleted", `{"role":"user","content":[{"type":"image","data":"x","type":"text"}]}`, func(m *Message) {
			b, _ := m.Blocks()
			b[0].Set("data", []byte(`"y"`))
			b[0].Delete("type")
		}, "user", "text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := messageFromRaw([]byte(c.raw))
			c.write(m)
			if got := m.Role(); got != c.role {
				t.Errorf("Role() = %q, want %q", got, c.role)
			}
			if twin := messageFromRaw(m.AppendJSON(nil)); twin.Role() != m.Role() {
				t.Errorf("Role() = %q, its encoding's %q", m.Role(), twin.Role())
			}
			if blocks, _ := m.Blocks(); len(blocks) > 0 {
				if got := blocks[0].Type(); got != c.typ {
					t.Errorf("Type() = %q, want %q", got, c.typ)
				}
			}
		})
	}
}

// TestToolCallsRun: the calls are returned in content order whether they
// are one run of the content (a view of it, which appending to does not
// write) or scattered (a copy); blocks without an id are left out.
func TestToolCallsRun(t *testing.T) {
	const call1, call2 = `{"type":"toolCall","id":"toolu_01A09q90qw90lq917835lq9A","name":"read","arguments":{}}`, `{"type":"toolCall","id":"toolu_01B19q90qw90lq917835lq9B","name":"ls","arguments":{}}`
	const text, noID = `{"type":"text","text":"x"}`, `{"type":"toolCall","id":"","name":"ls"}`
	for _, c := range []struct {
		content string
		want    []int // indexes of the calls in the content
	}{
		{`[` + text + `,` + call1 + `,` + call2 + `]`, []int{1, 2}},
		{`[` + call1 + `,` + text + `,` + call2 + `]`, []int{0, 2}},
		{`[` + call1 + `,` + noID + `,` + call2 + `,` + text + `]`, []int{0, 2}},
		{`[` + text + `]`, nil},
	} {
		tr, err := FromMessages([]byte(`[{"role":"assistant","content":`+c.content+`}]`), Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"})
		if err != nil {
			t.Fatal(err)
		}
		m := tr.Messages[0]
		blocks, _ := m.Blocks()
		calls := m.ToolCalls()
		if len(calls) != len(c.want) {
			t.Fatalf("%s: %d calls, want %d", c.content, len(calls), len(c.want))
		}
		for i, k := range c.want {
			if calls[i] != blocks[k] {
				t.Errorf("%s: call %d is not block %d", c.content, i, k)
			}
		}
		if len(calls) > 0 {
			_ = append(calls, TextBlock("appended"))
			if got := string(m.AppendJSON(nil)); got != `{"role":"assistant","content":`+c.content+`}` {
				t.Errorf("appending to the calls changed the message: %s", got)
			}
		}
	}
}

// FuzzBlankText holds Block.BlankText, which reads the raw string, to
// IsBlank of the decoded text, for texts written plainly and with every
// character escaped as \uXXXX.
func FuzzBlankText(f *testing.F) {
	for _, s := range []string{"", " ", "\n\t\r\f\v", "\u00a0\u2003\u3000", "\u0085", " x ", "\b", "\"", `\`, "\u200b", "\x00", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		escaped := []byte{'"'}
		for _, r := range s {
			if r > 0xffff || r == utf8.RuneError { // as UTF-8 (an invalid byte as U+FFFD)
				escaped = utf8.AppendRune(escaped, r)
				continue
			}
			escaped = fmt.Appendf(escaped, `\u%04x`, r)
		}
		escaped = append(escaped, '"')
		for _, raw := range [][]byte{JSONString(s), escaped} {
			b := NewBlock(Field{"type", JSONString("text")}, Field{"text", raw})
			text, _ := b.Text()
			if got, want := b.BlankText(), IsBlank(text); got != want {
				t.Fatalf("BlankText(%s) = %v, IsBlank of %q = %v", raw, got, text, want)
			}
		}
	})
}

// encodedLenWrites are writes a rule makes to a message, each given a
// member name and a raw value.
var encodedLenWrites = []func(m *Message, key string, val []byte){
	func(m *Message, key string, val []byte) { m.Set(key, val) },
	func(m *Message, key string, val []byte) { m.Delete(key) },
	func(m *Message, key string, val []byte) {
		if blocks, _ := m.Blocks(); len(blocks) > 0 {
			blocks[0].Set(key, val)
		}
	},
	func(m *Message, key string, val []byte) {
		if blocks, _ := m.Blocks(); len(blocks) > 0 {
			blocks[len(blocks)-1].Set("text", blocks[len(blocks)-1].Raw()[:0:0]) // a no-op edit back and forth
			blocks[len(blocks)-1].Set("text", val)
		}
	},
	func(m *Message, key string, val []byte) {
		blocks, _ := m.Blocks()
		m.SetBlocks(append(blocks[:len(blocks):len(blocks)], NewBlock(Field{Key: key, Value: val})))
	},
	func(m *Message, key string, val []byte) { m.Set("content", val) },
	func(m *Message, key string, val []byte) {
		m.Set(key, val)
		m.Set("content", []byte(`[{"type":"text","text":"x"}]`))
	},
}

// checkEncodedLen applies write op to every message of history and holds
// EncodedLen, and MessagesSize, to the encoding's length.
func checkEncodedLen(t *testing.T, history []byte, key string, val []byte, op int) {
	t.Helper()
	tr, err := FromMessages(history, Target{})
	if err != nil {
		return
	}
	for i, m := range tr.Messages {
		if m.IsObject() {
			encodedLenWrites[op%len(encodedLenWrites)](m, key, val)
		}
		if got, want := m.EncodedLen(), len(m.AppendJSON(nil)); got != want {
			t.Fatalf("messages[%d] %s: EncodedLen %d, want %d", i, m.AppendJSON(nil), got, want)
		}
	}
	if got, want := tr.MessagesSize(), len(tr.MessagesJSON()); got != want {
		t.Fatalf("MessagesSize %d, want %d", got, want)
	}
}

// TestEncodedLen: a message's length without its encoding is its
// encoding's, whatever wrote it: names AppendString escapes or replaces
// (a quote, a control, non-ASCII, invalid UTF-8), blocks edited back to
// their bytes in a spaced input (which fold back to it), blocks added,
// content replaced.
func TestEncodedLen(t *testing.T) {
	histories := []string{
		`[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"thinking","thinking":"b"}],"usage":{"input":1}}]`,
		"[ { \"role\" : \"user\" , \"content\" : [ { \"type\" : \"text\" , \"text\" : \"a\" } ] } , null , \"s\" ]",
		`[{"r\u006fle":"user","content":[{"type":"text","text":"\u00e9"}],"k\"q":1}]`,
	}
	keys := []string{"x", "content", "text", `a"b`, "a\nb", "ключ", "bad\xffkey", ""}
	vals := []string{`"v"`, `"a"`, `[]`, `[{"type":"text","text":"y"},{"type":"image"}]`, `"x\u00e9"`, `{"a":1}`}
	for _, h := range histories {
		for op := range encodedLenWrites {
			for _, k := range keys {
				for _, v := range vals {
					checkEncodedLen(t, []byte(h), k, []byte(v), op)
				}
			}
		}
	}
}

// FuzzEncodedLen holds EncodedLen to the encoding over any history and
// write.
func FuzzEncodedLen(f *testing.F) {
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"text","text":"a"}],"usage":{}}]`), "usage", []byte(`{"input":0}`), uint8(0))
	f.Add([]byte("[ { \"role\" : \"user\" , \"content\" : [ { \"type\" : \"text\" , \"text\" : \"a\" } ] } ]"), "text", []byte(`"a"`), uint8(2))
	f.Add([]byte(`[{"role":"user","content":"x"}]`), "k\"\xff", []byte(`1`), uint8(4))
	f.Fuzz(func(t *testing.T, history []byte, key string, val []byte, op uint8) {
		checkEncodedLen(t, history, key, val, int(op))
	})
}

// TestTapeEndsAnswerAsTheValue holds NonBlank and TrimmedIsNot, which
// answer from the tape when the decode recorded a value's ends as plain,
// to their definitions on the decoded value: as decoded, and after a
// write, for values padded, escaped at either end or inside, blank, and
// of the wanted length; and that the tape does answer for plain ends.
func TestTapeEndsAnswerAsTheValue(t *testing.T) {
	values := []string{`"openclaw"`, `" openclaw"`, `"openclaw\n"`, `"open\u0063law"`, `"anthropic"`, `"abcdefgh"`,
		`""`, `"  "`, `"\u00a0"`, `"x"`, `"a\u0020"`, `"\u0041"`, `7`, `null`, `"openclaw "`, `"openclawx\n"`, `"open\u0063law "`}
	for _, v := range values {
		tr, err := FromMessages([]byte(`[{"role":"assistant","provider":`+v+`,"content":[{"type":"thinking","thinking":"t","signature":`+v+`}]}]`), Target{})
		if err != nil {
			t.Fatal(err)
		}
		m := tr.Messages[0]
		blocks, _ := m.Blocks()
		b := blocks[0]
		for _, edited := range []bool{false, true} {
			if edited {
				m.Set("provider", []byte(v))
				b.Set("signature", []byte(v))
			}
			s, ok := m.String("provider")
			if got, want := m.members.TrimmedIsNot("provider", "openclaw"), ok && strings.TrimSpace(s) != "openclaw"; got && !want {
				t.Errorf("provider %s (edited %v): TrimmedIsNot true, but it trims to %q", v, edited, strings.TrimSpace(s))
			}
			s, ok = b.String("signature")
			if got, want := b.NonBlank("signature"), ok && !IsBlank(s); got != want {
				t.Errorf("signature %s (edited %v): NonBlank %v, want %v", v, edited, got, want)
			}
		}
	}
	// the tape answers at another length when both ends are plain and
	// nothing is escaped, else the first bytes do, up to a backslash
	for v, want := range map[string]bool{`"anthropic"`: true, `"abcdefgh"`: false, `" anthropic"`: false,
		`"anthropic\n"`: true, `"openclaw\n"`: false, `"openclawx\n"`: false, `"o\u0070enclaw\n"`: false, `"x\u0070\n"`: true, `"op"`: true} {
		tr, err := FromMessages([]byte(`[{"role":"assistant","provider":`+v+`}]`), Target{})
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.Messages[0].members.TrimmedIsNot("provider", "openclaw"); got != want {
			t.Errorf("provider %s as decoded: TrimmedIsNot %v, want %v", v, got, want)
		}
	}
}

// TestDeleteInPlace: a member deleted from a value read from the tape
// leaves the others in order, the first of duplicates first, and costs
// only the overlay that holds the members (the array it made is its own,
// so the member is removed in place); a value built from a caller's
// fields never changes the caller's array.
func TestDeleteInPlace(t *testing.T) {
	raw := `{"role":"toolResult","toolCallId":"call_Jq3vT7mXb2LpR9sKf4HdWn8Y","details":{"exitCode":0},"content":[{"type":"text","text":"ok"}],"details":1}`
	m := messageFromRaw([]byte(raw))
	if !m.Delete("details") {
		t.Fatal("Delete(details) found nothing")
	}
	want := `{"role":"toolResult","toolCallId":"call_Jq3vT7mXb2LpR9sKf4HdWn8Y","content":[{"type":"text","text":"ok"}],"details":1}`
	if got := m.AppendJSON(nil); string(got) != want {
		t.Fatalf("after one Delete:\n got %s\nwant %s", got, want)
	}
	if !m.Delete("details") || m.Has("details") {
		t.Fatal("the second details member was not deleted")
	}
	if m.Delete("details") {
		t.Fatal("Delete reported a member that is gone")
	}

	fields := []Field{{Key: "role", Value: []byte(`"user"`)}, {Key: "x", Value: []byte("1")}, {Key: "content", Value: []byte(`"hi"`)}}
	built := NewMessage(fields...)
	built.Delete("x")
	if fields[1].Key != "x" || fields[2].Key != "content" {
		t.Fatalf("Delete on a built message changed its caller's fields: %+v", fields)
	}

	msgs := make([]*Message, 101) // AllocsPerRun's warm-up run and its 100
	for i := range msgs {
		msgs[i] = messageFromRaw([]byte(raw))
	}
	next := 0
	if n := testing.AllocsPerRun(100, func() { msgs[next].Delete("details"); next++ }); n != 1 {
		t.Errorf("Delete of a tape member: %v allocations, want 1 (the overlay)", n)
	}
}

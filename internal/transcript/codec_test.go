package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

const cleanJob = `{"job_id":"j1","tenant":"acme","session_id":"agent:main:telegram:42",
 "target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},
 "messages":[
  {"role":"user","content":"hi","timestamp":1},
  {"role" : "assistant", "content":[{"type":"text","text":"hello \u00e9 <b>"}], "x-unknown": {"kept": [1, 2.5e3]}},
  null
 ]}`

func TestDecodeJobUnchangedMessagesAreByteIdentical(t *testing.T) {
	tr, err := DecodeJob([]byte(cleanJob), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.JobID != "j1" || tr.Tenant != "acme" || tr.SessionID != "agent:main:telegram:42" {
		t.Fatalf("envelope: %+v", tr)
	}
	if tr.Target != (Target{"anthropic", "anthropic-messages", "claude-opus-4-6"}) {
		t.Fatalf("target: %+v", tr.Target)
	}
	if len(tr.Messages) != 3 {
		t.Fatalf("got %d messages", len(tr.Messages))
	}
	// Looking inside a message must not change its encoding.
	if tr.Messages[1].Role() != "assistant" {
		t.Fatalf("role %q", tr.Messages[1].Role())
	}
	blocks, _ := tr.Messages[1].Blocks()
	if txt, _ := blocks[0].Text(); txt != "hello é <b>" {
		t.Fatalf("text %q", txt)
	}
	want := `[{"role":"user","content":"hi","timestamp":1},{"role" : "assistant", "content":[{"type":"text","text":"hello \u00e9 <b>"}], "x-unknown": {"kept": [1, 2.5e3]}},null]`
	if got := string(tr.MessagesJSON()); got != want {
		t.Fatalf("messages not byte-identical:\n got %s\nwant %s", got, want)
	}
	if tr.Messages[2].IsObject() {
		t.Fatal("null entry reported as an object")
	}
}

func TestEditedMessageReencodesOnlyWhatChanged(t *testing.T) {
	tr, err := DecodeJob([]byte(cleanJob), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := tr.Messages[1]
	blocks, _ := m.Blocks()
	m.SetBlocks(append(blocks, TextBlock("second\n\"line\"")))
	m.Delete("x-unknown")
	m.SetString("stopReason", "stop")
	want := `{"role":"assistant","content":[{"type":"text","text":"hello \u00e9 <b>"},{"type":"text","text":"second\n\"line\""}],"stopReason":"stop"}`
	if got := string(m.AppendJSON(nil)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if tr.Messages[0].Changed() || !m.Changed() {
		t.Fatal("change tracking is wrong")
	}
	if !json.Valid(tr.EncodePayload(nil, []byte(`{"changed":true}`))) {
		t.Fatal("payload is not valid JSON")
	}
}

func TestSetEqualValueIsNotAChange(t *testing.T) {
	tr, _ := DecodeJob([]byte(cleanJob), Limits{})
	m := tr.Messages[0]
	m.SetString("role", "user")
	m.Set("timestamp", []byte("1"))
	if m.Changed() {
		t.Fatal("setting equal values marked the message changed")
	}
}

func TestBlockEditAfterFlushIsKept(t *testing.T) {
	tr, _ := DecodeJob([]byte(cleanJob), Limits{})
	m := tr.Messages[1]
	blocks, _ := m.Blocks()
	blocks[0].SetString("text", "a")
	_ = m.AppendJSON(nil) // flushes
	blocks[0].SetString("text", "b")
	if got := string(m.AppendJSON(nil)); !strings.Contains(got, `"text":"b"`) {
		t.Fatalf("edit after encode lost: %s", got)
	}
}

func TestDecodeJobErrors(t *testing.T) {
	deep := `{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"x"},"messages":[` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `]}`
	cases := []struct {
		name, job string
		lim       Limits
		code      deadletter.Code
		contains  string
	}{
		{"not json", `{"job_id":`, Limits{}, deadletter.CodeInvalidJSON, "unexpected end"},
		{"trailing garbage", `{"job_id":"j"} x`, Limits{}, deadletter.CodeInvalidJSON, "after the object"},
		{"array", `[1]`, Limits{}, deadletter.CodeInvalidJob, "must be a JSON object"},
		{"missing tenant", `{"job_id":"j","session_id":"s","target":{"provider":"x"},"messages":[]}`, Limits{}, deadletter.CodeInvalidJob, "tenant: required"},
		{"bad tenant", `{"job_id":"j","tenant":"a b","session_id":"s","target":{"provider":"x"},"messages":[]}`, Limits{}, deadletter.CodeInvalidJob, "tenant:"},
		{"unknown field", `{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"x"},"mesages":[]}`, Limits{}, deadletter.CodeInvalidJob, "mesages: unknown job field"},
		{"empty target", `{"job_id":"j","tenant":"t","session_id":"s","target":{},"messages":[]}`, Limits{}, deadletter.CodeInvalidTarget, "provider and api are both empty"},
		{"missing target", `{"job_id":"j","tenant":"t","session_id":"s","messages":[]}`, Limits{}, deadletter.CodeInvalidTarget, "target: required"},
		{"target typo", `{"job_id":"j","tenant":"t","session_id":"s","target":{"provder":"x"},"messages":[]}`, Limits{}, deadletter.CodeInvalidTarget, "provder"},
		{"messages not array", `{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"x"},"messages":{}}`, Limits{}, deadletter.CodeInvalidJob, "messages: must be an array"},
		{"render option of the wrong type", `{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"x"},"options":{"render":1},"messages":[]}`, Limits{}, deadletter.CodeInvalidJob, "options.render: must be a string, got number"},
		{"options not an object", `{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"x"},"options":[1],"messages":[]}`, Limits{}, deadletter.CodeInvalidJob, "options: must be an object"},
		{"too deep", deep, Limits{}, deadletter.CodeInvalidJSON, "nesting deeper than 256"},
		{"too large", cleanJob, Limits{MaxBytes: 10}, deadletter.CodePayloadTooLarge, "over the limit of 10"},
		{"too many messages", cleanJob, Limits{MaxMessages: 2}, deadletter.CodePayloadTooLarge, "3 messages"},
		// invalid UTF-8 is JSON text to the codec (the text-repair rule fixes it)
		{"bad utf8 is accepted", "{\"job_id\":\"\xff\"}", Limits{}, deadletter.CodeInvalidJob, "tenant"},
		{"control char", "{\"job_id\":\"a\x01\"}", Limits{}, deadletter.CodeInvalidJSON, "control character"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeJob([]byte(c.job), c.lim)
			if err == nil {
				t.Fatal("no error")
			}
			if ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.contains) {
				t.Fatalf("got %q (%s), want code %s containing %q", err, ErrorCode(err), c.code, c.contains)
			}
		})
	}
}

func TestDeeplyNestedJobDoesNotRecurseUnbounded(t *testing.T) {
	job := []byte(`{"messages":` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `}`)
	if _, err := DecodeJob(job, Limits{MaxBytes: 4 << 20}); ErrorCode(err) != deadletter.CodeInvalidJSON {
		t.Fatalf("got %v", err)
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n tab\t cr\r", "\x00\x1f", "é 中 😀", "<>&", "bad\xffutf8"} {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("%q round-trips to %q, encoding/json gives %q", s, back, wantBack)
		}
	}
}

func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{`1`, `-0.5e+3`, `01`, `1.`, `.5`, `"a\u12"`, `"\q"`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `tru`, `null`, `[]`, `{}`, ` {"a":[true,false,null]} `, `"\ud800"`, `[1 2]`} {
		got := Valid([]byte(s), 10) == nil
		if want := json.Valid([]byte(s)); got != want {
			t.Errorf("%s: scanner says %v, encoding/json %v", s, got, want)
		}
	}
}

func TestFromMessagesAndUnquote(t *testing.T) {
	tr, err := FromMessages([]byte(`[{"role":"user","content":[{"type":"image","data":"QUJD","mimeType":"image/png"},{"type":"image","data":"QU\/J"}]}]`), Target{Provider: "x"})
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := tr.Messages[0].Blocks()
	raw, _ := blocks[0].Get("data")
	data, _ := UnquoteBytes(raw)
	if string(data) != "QUJD" || &data[0] != &raw[1] {
		t.Fatal("unescaped base64 should alias the input")
	}
	raw, _ = blocks[1].Get("data")
	if data, _ = UnquoteBytes(raw); string(data) != "QU/J" {
		t.Fatalf("escaped: %q", data)
	}
	if !bytes.Equal(tr.MessagesJSON(), []byte(`[{"role":"user","content":[{"type":"image","data":"QUJD","mimeType":"image/png"},{"type":"image","data":"QU\/J"}]}]`)) {
		t.Fatal("not byte-identical")
	}
}

func TestEncodeJobRoundTrips(t *testing.T) {
	file := "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"custom\",\"customType\":\"model-snapshot\",\"data\":{\"provider\":\"p\"}}\n{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n"
	tr, err := DecodeSession([]byte(file), Target{Provider: "anthropic", API: "anthropic-messages", Model: "m"}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tr.Tenant = "offline"
	back, err := DecodeJob(tr.EncodeJob(nil), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if back.SessionID != "s" || back.Tenant != "offline" || back.Target != tr.Target || string(back.MessagesJSON()) != `[{"role":"user","content":"hi"}]` {
		t.Fatalf("round trip: %+v", back)
	}
	if len(back.CustomEntries) != 1 || back.CustomEntries[0].CustomType != "model-snapshot" {
		t.Fatalf("custom entries: %+v", back.CustomEntries)
	}
}

func TestDecodeStringMatchesEncodingJSON(t *testing.T) {
	for _, raw := range []string{`""`, `"plain"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud800"`, `"\ud800x"`, `"\udc00\ud800"`, `"\ud83d\u0041"`, `"tail\\"`, `"é\n中"`} {
		got, ok := jsontape.DecodeString([]byte(raw))
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if !ok || got != want {
			t.Errorf("%s: got %q (%v), encoding/json %q", raw, got, ok, want)
		}
		if b, _ := UnquoteBytes([]byte(raw)); string(b) != want {
			t.Errorf("%s: UnquoteBytes %q, want %q", raw, b, want)
		}
	}
}

func TestMessagesSizeIsTheEncodedLength(t *testing.T) {
	tr, err := DecodeJob([]byte(cleanJob), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tr.MessagesSize(), len(tr.MessagesJSON()); got != want {
		t.Fatalf("unchanged: size %d, encoded %d", got, want)
	}
	tr.Messages[0].SetString("content", "a longer content than before")
	tr.Messages = append(tr.Messages, NewMessage(Field{"role", JSONString("user")}))
	if got, want := tr.MessagesSize(), len(tr.MessagesJSON()); got != want {
		t.Fatalf("changed: size %d, encoded %d", got, want)
	}
	if (&Transcript{}).MessagesSize() != len("[]") {
		t.Fatal("empty list")
	}
}

// TestDecodeJobKeepsSettingsOptionsRaw: the options that shape the request
// body are read; every other member, an unknown one included, is kept in
// the job's order for package settings, unread.
func TestDecodeJobKeepsSettingsOptionsRaw(t *testing.T) {
	for options, want := range map[string]struct{ settings, render string }{
		`{"now_ms":5,"render":"request","images":{"max_bytes":1},"now":1}`: {`{"now_ms":5,"images":{"max_bytes":1},"now":1}`, "request"},
		`{"render":"messages","continue":true}`:                            {"", "messages"},
		`null`:                                                             {"", ""},
		`{}`:                                                               {"", ""},
	} {
		tr, err := DecodeJob([]byte(`{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"x"},"options":`+options+`,"messages":[]}`), Limits{})
		if err != nil {
			t.Fatalf("%s: %v", options, err)
		}
		if string(tr.Options.Settings) != want.settings || tr.Options.Render != want.render {
			t.Errorf("%s: settings %s render %q, want %s and %q", options, tr.Options.Settings, tr.Options.Render, want.settings, want.render)
		}
	}
}

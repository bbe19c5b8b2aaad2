package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

func TestInvalidTextIsMarkedNotRejected(t *testing.T) {
	job := "{\"job_id\":\"j\",\"tenant\":\"t\",\"session_id\":\"s\",\"target\":{\"provider\":\"anthropic\",\"api\":\"anthropic-messages\",\"model\":\"m\"},\"messages\":[" +
		`{"role":"user","content":"fine \ud83d\ude00"},` +
		"{\"role\":\"toolResult\",\"toolCallId\":\"c1\",\"content\":[{\"type\":\"text\",\"text\":\"bin \xff\xfe end\"}]}," +
		`{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"w","arguments":{"s":"cut \ud83d"}}]},` +
		`{"role":"user","content":"low \udc00 alone, high then text \ud83dx"}` + "]}"
	tr, err := DecodeJob([]byte(job), Limits{})
	if err != nil {
		t.Fatalf("a job with invalid text is a dead letter: %v", err)
	}
	want := []bool{false, true, true, true}
	for i, m := range tr.Messages {
		if m.HasInvalidText() != want[i] {
			t.Errorf("message %d: HasInvalidText %v, want %v", i, m.HasInvalidText(), want[i])
		}
	}
	counts := []int{0, 2, 1, 2}
	for i, m := range tr.Messages {
		if n := m.RepairText(); n != counts[i] {
			t.Errorf("message %d: repaired %d, want %d", i, n, counts[i])
		}
	}
	out := tr.MessagesJSON()
	if !utf8.Valid(out) || !json.Valid(out) {
		t.Fatalf("output is not valid UTF-8 JSON: %q", out)
	}
	if !bytes.HasPrefix(out, []byte(`[{"role":"user","content":"fine \ud83d\ude00"},`)) {
		t.Errorf("the untouched message is not byte-identical: %s", out)
	}
	for _, s := range []string{`"bin \ufffd\ufffd end"`, `"cut �"`, `"low � alone, high then text �x"`} {
		if !bytes.Contains(out, []byte(s)) {
			t.Errorf("output lacks %s: %s", s, out)
		}
	}
	again, err := FromMessages(out, tr.Target)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range again.Messages {
		if m.HasInvalidText() {
			t.Errorf("message %d still holds invalid text after repair", i)
		}
	}
}

func TestRepairTextKeysAndNonObjects(t *testing.T) {
	tr, err := FromMessages([]byte("[{\"role\":\"user\",\"k\xff\":1,\"content\":\"ok\"},\"str \\udfff\"]"), Target{Provider: "p", API: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Messages[0].RepairText(); n != 1 {
		t.Errorf("key repair: %d, want 1", n)
	}
	if n := tr.Messages[1].RepairText(); n != 1 {
		t.Errorf("string entry repair: %d, want 1", n)
	}
	if got := string(tr.MessagesJSON()); got != `[{"role":"user","k\ufffd":1,"content":"ok"},"str �"]` {
		t.Errorf("got %s", got)
	}
}

func TestSessionMarksInvalidText(t *testing.T) {
	session := "{\"type\":\"session\",\"id\":\"s\"}\n" +
		"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"ok\"}}\n" +
		"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"bad \\ud800\"}}\n"
	tr, err := DecodeSession([]byte(session), Target{Provider: "anthropic", API: "anthropic-messages"}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Messages) != 2 || tr.Messages[0].HasInvalidText() || !tr.Messages[1].HasInvalidText() {
		t.Fatalf("marks: %d messages", len(tr.Messages))
	}
}

// FuzzRepairText: any bytes as a string of a message decode (never a dead
// letter for the bytes alone), and after RepairText the message is valid
// UTF-8 JSON without lone surrogates; a message with valid text stays its
// input bytes.
func FuzzRepairText(f *testing.F) {
	for _, s := range []string{"plain", "\xff\xfe", `\ud83d`, `\ud83d\ude00`, `\udc00\ud800`, "é\xc3", `\u00e9\ud83dx`, `\\ud83d`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if strings.ContainsAny(body, "\"\x00\n\r\t") || strings.Count(body, `\`)%2 == 1 {
			return
		}
		raw := []byte(`[{"role":"user","content":"` + body + `"}]`)
		tr, err := FromMessages(raw, Target{Provider: "p", API: "a"})
		if err != nil {
			return // a bad escape or control character: not what this fuzzes
		}
		m := tr.Messages[0]
		had := m.HasInvalidText()
		n := m.RepairText()
		out := tr.MessagesJSON()
		if had != (n > 0) {
			t.Fatalf("marked %v but repaired %d: %q", had, n, raw)
		}
		if !had && !bytes.Equal(out, raw) {
			t.Fatalf("valid text changed: %q -> %q", raw, out)
		}
		if err := Valid(out, 8); err != nil || jsontape.HasInvalidText(out) || !utf8.Valid(out) || !json.Valid(out) {
			t.Fatalf("repair left invalid text: %q -> %q (%v)", raw, out, err)
		}
	})
}

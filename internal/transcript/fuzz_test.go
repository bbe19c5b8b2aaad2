package transcript

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// FuzzDecodeJob checks the codec on arbitrary input: no panic; a decoded job
// re-encodes to valid JSON; decoding the re-encoded messages gives the same
// messages (compared as JSON values), both untouched and fully re-encoded.
func FuzzDecodeJob(f *testing.F) {
	f.Add([]byte(cleanJob))
	f.Add([]byte(`{"job_id":"j","tenant":"t","session_id":"s","target":{"api":"x"},"messages":[{"role":"user","content":[{"type":"text","text":"a\u0000b"}]}]}`))
	f.Add([]byte(`{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"x"},"messages":[[[[]]], "x", 1e400, {"a":{"b":[true]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := DecodeJob(data, Limits{MaxDepth: 64})
		if err != nil {
			if ErrorCode(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		checkSameStructure(t, tr.Messages)
		untouched := tr.MessagesJSON()
		// Force every object message and block to be re-encoded.
		for _, m := range tr.Messages {
			if !m.IsObject() {
				continue
			}
			blocks, _ := m.Blocks()
			for _, b := range blocks {
				if b.IsObject() {
					b.Set("fuzz", []byte("1"))
					b.Delete("fuzz")
				}
			}
			m.Set("fuzz", []byte("1"))
			m.Delete("fuzz")
		}
		rewritten := tr.MessagesJSON()
		payload := tr.EncodePayload(nil, nil)
		for _, out := range [][]byte{untouched, rewritten, payload} {
			if !json.Valid(out) {
				t.Fatalf("invalid output JSON: %s", out)
			}
		}
		if !reflect.DeepEqual(jsonValue(t, untouched), jsonValue(t, rewritten)) {
			t.Fatalf("re-encoding changed the messages:\n%s\n%s", untouched, rewritten)
		}
		again, err := FromMessages(rewritten, tr.Target)
		if err != nil {
			t.Fatalf("re-encoded messages do not decode: %v", err)
		}
		if !bytes.Equal(again.MessagesJSON(), rewritten) {
			t.Fatal("decode(encode(decode(x))) is not stable")
		}
	})
}

// jsonValue decodes a JSON text keeping numbers as written.
func jsonValue(t *testing.T, data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// FuzzDecodeString checks the hand-written unescaper against encoding/json
// on every valid JSON string. A string with invalid UTF-8 is valid to the
// scanner, and DecodeString keeps its bytes (the text-repair rule names
// them) where encoding/json puts U+FFFD for each invalid byte: the two
// decodings then agree once each invalid byte of DecodeString's is
// replaced the same way.
func FuzzDecodeString(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `"\ud83d\ude00"`, `"\ud800"`, `"\u0000\/"`, "\"\xb40\"", "\"\xe2\x82\\n\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw = bytes.TrimSpace(raw)
		if Valid(raw, 1) != nil || len(raw) == 0 || raw[0] != '"' {
			return
		}
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("scanner accepted %q, encoding/json: %v", raw, err)
		}
		if got, ok := jsontape.DecodeString(raw); !ok || replaceInvalidBytes(got) != want {
			t.Fatalf("%q: got %q, want %q", raw, got, want)
		}
	})
}

// replaceInvalidBytes replaces each byte of s that is not part of valid
// UTF-8 with U+FFFD.
func replaceInvalidBytes(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // an invalid byte ranges as one utf8.RuneError
	}
	return b.String()
}

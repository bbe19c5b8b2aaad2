package jsontape

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestKeySpans holds Key and Find, which find a member's key from its
// value's span and length (keySpan), to encoding/json's reading of the
// same object: keys empty, escaped (a quote, a trailing backslash), with
// space around the colon, and longer than KeyLen holds (64 KiB), plain and
// escaped.
func TestKeySpans(t *testing.T) {
	long := strings.Repeat("k", 70_000)
	keys := []string{"role", "", `a"b`, `x\`, `\"`, "content", long, long + `"q\`, "type \t", "zz"}
	var b bytes.Buffer
	b.WriteString(`[{`)
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		enc, _ := json.Marshal(k)
		b.Write(enc)
		b.WriteString([]string{":", " : ", "\n:\t", ":"}[i%4])
		b.WriteString(`"v"`)
	}
	b.WriteString(`}]`)
	tapes, ok, err := SplitArray(b.Bytes(), 64, Parallel{})
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	tp := tapes[0]
	n := tp.Message(0)
	ms := tp.MemberOf(n)
	if len(ms) != len(keys) {
		t.Fatalf("%d members, want %d", len(ms), len(keys))
	}
	for i, k := range keys {
		if got := tp.Key(&ms[i]); got != k {
			t.Errorf("member %d: key %.40q, want %.40q", i, got, k)
		}
		if got := tp.Find(n, k); got != n.First+uint32(i) {
			t.Errorf("Find(%.40q) = %d, want %d", k, got, n.First+uint32(i))
		}
		if v := tp.Value(&ms[i]); string(v) != `"v"` {
			t.Errorf("member %d: value %s", i, v)
		}
	}
	if got := tp.Find(n, long[1:]+"k"); got != n.First+6 {
		t.Errorf("the long key by an equal string: %d", got)
	}
	if got := tp.Find(n, long[1:]); got != NoMember {
		t.Errorf("a key one byte shorter than the long one: %d", got)
	}
}

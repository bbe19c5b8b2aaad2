package transcript

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
)

func TestDecodeSessionRepairsMalformedLines(t *testing.T) {
	// Spec V52: one bad line dropped, the CRLF line kept.
	file := "{\"type\":\"session\",\"id\":\"s\"}\n{bad json\n{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\r\n\n"
	tr, err := DecodeSession([]byte(file), Target{Provider: "anthropic"}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Repair.DroppedLines != 1 {
		t.Fatalf("dropped %d lines, want 1", tr.Repair.DroppedLines)
	}
	if got := string(tr.MessagesJSON()); got != `[{"role":"user","content":"hi"}]` {
		t.Fatalf("messages %s", got)
	}
	if tr.SessionID != "s" {
		t.Fatalf("session id %q", tr.SessionID)
	}
}

func TestDecodeSessionHeaderErrors(t *testing.T) {
	for name, c := range map[string]struct{ file, want string }{
		"invalid header": {`{"type":"message"}`, "invalid session header"},
		"header no id":   {`{"type":"session","id":""}`, "invalid session header"},
		"empty":          {"\n\n", "empty session file"},
		"all bad":        {"{x\n", "empty session file"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeSession([]byte(c.file), Target{Provider: "x"}, Limits{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	if _, err := DecodeSession([]byte(`{"type":"session","id":"s"}`), Target{}, Limits{}); ErrorCode(err) != deadletter.CodeInvalidTarget {
		t.Fatalf("empty target: %v", err)
	}
}

func TestDecodeSessionFollowsActiveBranchAndCompaction(t *testing.T) {
	file := strings.Join([]string{
		`{"type":"session","id":"s"}`,
		`{"type":"message","id":"1","parentId":null,"message":{"role":"user","content":"one"}}`,
		`{"type":"message","id":"2","parentId":"1","message":{"role":"assistant","content":[]}}`,
		`{"type":"message","id":"3","parentId":"2","message":{"role":"user","content":"abandoned branch"}}`,
		`{"type":"message","id":"4","parentId":"2","message":{"role":"user","content":"three"}}`,
		`{"type":"compaction","id":"5","parentId":"4","summary":"S","firstKeptEntryId":"4","tokensBefore":9,"timestamp":"2026-04-12T10:15:03.120Z"}`,
		`{"type":"custom","id":"6","parentId":"5","customType":"model-snapshot","data":{"provider":"anthropic"}}`,
		`{"type":"message","id":"7","parentId":"6","message":{"role":"assistant","content":[]}}`,
	}, "\n")
	tr, err := DecodeSession([]byte(file), Target{Provider: "anthropic"}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"compactionSummary","summary":"S","tokensBefore":9,"timestamp":1775988903120},{"role":"user","content":"three"},{"role":"assistant","content":[]}]`
	if got := string(tr.MessagesJSON()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if len(tr.CustomEntries) != 1 || tr.CustomEntries[0].CustomType != "model-snapshot" || string(tr.CustomEntries[0].Data) != `{"provider":"anthropic"}` {
		t.Fatalf("custom entries %+v", tr.CustomEntries)
	}
}

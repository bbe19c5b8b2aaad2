package transcript

import (
	"bytes"
	"strings"
	"testing"
)

// looksLikeSessionParsed is LooksLikeSession's definition: the first
// non-blank line, if no line up to it is longer than MaxSessionHeaderBytes
// (its LF not counted), parses as an object whose "type" is "session".
func looksLikeSessionParsed(data []byte) bool {
	for len(data) > 0 {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			end = len(data)
		}
		if end > MaxSessionHeaderBytes {
			return false
		}
		var line []byte
		if line, data = nextLine(data); len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		obj, err := ParseObject(bytes.TrimSpace(line))
		return err == nil && isType(obj, "session")
	}
	return false
}

// lookalikeSessions are inputs at the edges of LooksLikeSession: headers
// with the type or its key spelled with escapes, jobs whose text holds
// "session" or \u escapes of other letters, broken lines.
var lookalikeSessions = []string{
	`{"type":"session","version":3,"id":"0b7c6a1e","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/w"}` + "\n" + `{"type":"message"}`,
	`{"type":"\u0073ession","id":"a"}` + "\n",
	`{"type":"sessio\u006E"}`,
	`{"type":"s\u0065ss\u0069\u006fn"}`,
	`{"\u0074ype":"session"}`,
	"\n\r\n  \t\n" + `{"type":"session"}`,
	`{"type":"session"`,
	`{"type":"sessions"}`,
	`{"type":"Session"}`,
	`{"type":"\u0053ession"}`,
	`{"kind":"session"}`,
	`{"job_id":"j","messages":[{"role":"user","content":"a \u003cb\u003e \u0026 c"}]}`,
	`{"job_id":"j","messages":[{"role":"user","content":"type: session"}]}`,
	`{"job_id":"j","messages":[{"role":"user","content":"{\"type\":\"session\"}"}]}`,
	`{"job_id":"j","type":"job","messages":[{"role":"user","content":"\u006e"}]}`,
	`{"job_id":"j","text":"\\u0073ession"}`,
	`{"a":"\u00`,
	`{"a":"\u007`,
	`[{"type":"session"}]`,
	`"session"`,
	``,
}

// TestLooksLikeSessionSpelling: LooksLikeSession answers as its
// definition (the first line parsed), on headers whose type is spelled
// with escapes and on jobs that hold "session" or escapes of its letters,
// though it parses a line only when the line may spell "session".
func TestLooksLikeSessionSpelling(t *testing.T) {
	for _, in := range lookalikeSessions {
		if got, want := LooksLikeSession([]byte(in)), looksLikeSessionParsed([]byte(in)); got != want {
			t.Errorf("LooksLikeSession(%q) = %v, want %v", in, got, want)
		}
	}
	// A header is at most MaxSessionHeaderBytes long, a CR before its LF
	// counted; a
	// longer first line is a job's, whatever it holds, and a blank line
	// that long ends the search too.
	header := func(n int) string {
		h := `{"type":"session","version":3,"id":"0b7c6a1e-5f2d-4c8a-9e31-6d4b2f8a7c90","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/`
		return h + strings.Repeat("w", n-len(h)-2) + `"}`
	}
	job := `{"job_id":"j","messages":[{"role":"user","content":"` + strings.Repeat("x", MaxSessionHeaderBytes) + `"}],"type":"session"}`
	for _, c := range []struct {
		name, in string
		want     bool
	}{
		{"a header of the bound", header(MaxSessionHeaderBytes) + "\n" + `{"type":"message"}`, true},
		{"a header of the bound with its CR", header(MaxSessionHeaderBytes-1) + "\r\n", true},
		{"a header of the bound and a CR", header(MaxSessionHeaderBytes) + "\r\n", false},
		{"a header of the bound, alone", header(MaxSessionHeaderBytes), true},
		{"a header past it", header(MaxSessionHeaderBytes+1) + "\n", false},
		{"a one-line job past it", job, false},
		{"a long blank line first", strings.Repeat(" ", MaxSessionHeaderBytes+1) + "\n" + header(200), false},
		{"blank lines first", "\n\n" + header(MaxSessionHeaderBytes), true},
	} {
		if got, def := LooksLikeSession([]byte(c.in)), looksLikeSessionParsed([]byte(c.in)); got != c.want || def != c.want {
			t.Errorf("%s: LooksLikeSession %v, its definition %v, want %v", c.name, got, def, c.want)
		}
	}
	// The parse is skipped where no member can be "session": a job whose
	// text holds escapes of other letters only.
	if job := `{"job_id":"j","messages":[{"role":"user","content":"a \u003cb\u003e \u0026"}]}`; mayHoldSession([]byte(job)) {
		t.Errorf("mayHoldSession(%q) = true: the job's line would be validated twice", job)
	}
}

// FuzzLooksLikeSession holds LooksLikeSession to its definition.
func FuzzLooksLikeSession(f *testing.F) {
	for _, in := range lookalikeSessions {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := LooksLikeSession(in), looksLikeSessionParsed(in); got != want {
			t.Fatalf("LooksLikeSession(%q) = %v, want %v", in, got, want)
		}
	})
}

package pairing

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// analyze sizes its frames, occurrences and results once (countEntries):
// on a history with a call in every other message, far above the old
// guess of one in four, none of them is regrown, and the repair's counts
// are those of the history.
func TestAnalyzeArraysNotRegrown(t *testing.T) {
	var b strings.Builder
	b.WriteByte('[')
	const turns = 1000
	for i := range turns {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"assistant","content":[{"type":"toolCall","id":"call_%d_a","name":"read","arguments":{}},{"type":"toolCall","id":"call_%d_b","name":"ls","arguments":{}}]},`, i, i)
		fmt.Fprintf(&b, `{"role":"toolResult","toolCallId":"call_%d_a","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},`, i)
		fmt.Fprintf(&b, `{"role":"toolResult","toolCallId":"call_%d_b","toolName":"ls","content":[{"type":"text","text":"ok"}],"isError":false}`, i)
	}
	b.WriteByte(']')
	tr, err := transcript.FromMessages([]byte(b.String()), transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-sonnet-4-5"})
	if err != nil {
		t.Fatal(err)
	}
	s := analyze(tr.Messages, nil)
	if len(s.frames) != turns || len(s.occs) != 2*turns || len(s.results) != 2*turns {
		t.Fatalf("%d frames, %d occurrences, %d results, want %d, %d, %d", len(s.frames), len(s.occs), len(s.results), turns, 2*turns, 2*turns)
	}
	if cap(s.frames) != len(s.frames) || cap(s.occs) != len(s.occs) || cap(s.results) != len(s.results) {
		t.Fatalf("capacities %d, %d, %d: regrown, want the counts", cap(s.frames), cap(s.occs), cap(s.results))
	}
}

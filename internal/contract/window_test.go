package contract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// quarterCounter counts a message's content as a quarter of its bytes
// (its bound: every byte) and records which contents it counted exactly.
type quarterCounter struct{ counted []string }

func (*quarterCounter) Name() string { return "quarter" }

func (q *quarterCounter) Message(m *transcript.Message) int {
	s, _ := m.ContentString()
	q.counted = append(q.counted, s)
	return len(s) / 4
}

func (*quarterCounter) MessageBound(m *transcript.Message) int {
	s, _ := m.ContentString()
	return len(s)
}

func (*quarterCounter) Request(system, tools []byte) int      { return len(system) / 4 }
func (*quarterCounter) RequestBound(system, tools []byte) int { return len(system) }

// TestCountRequestNewestFirst: a request whose bound is over the room is
// counted from the newest message back only until the sum of the exact
// counts and the older messages' bounds fits (issue 30: the count costs
// the chain at most 25 % on a history that needs counting); one over the
// room even so is counted whole, each message once with the memo.
func TestCountRequestNewestFirst(t *testing.T) {
	msgs := make([]*transcript.Message, 10)
	for i := range msgs {
		msgs[i] = transcript.NewMessage(
			transcript.Field{Key: "role", Value: transcript.JSONString(transcript.RoleUser)},
			transcript.Field{Key: "content", Value: transcript.JSONString(fmt.Sprintf("%d%s", i, strings.Repeat("x", 99)))})
	}
	for _, c := range []struct {
		name   string
		window int  // the room: no reserve
		newest int  // messages counted exactly, newest first, before any whole count
		whole  bool // counted whole: every message's figure, each counted once
		total  int
	}{
		{"the bound fits", 1000, 0, false, 1000},
		{"the newest three fit", 800, 3, false, 7*100 + 3*25},
		{"every one counted fits", 250, 10, false, 250},
		{"over even counted", 249, 10, true, 250},
		{"the newest alone over", 60, 3, true, 250},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := &quarterCounter{}
			b := Budget{Counter: q, Window: c.window}.WithMemo(nil)
			got, whole := b.CountRequest(msgs, nil, nil)
			counted := c.newest
			if c.whole {
				counted = len(msgs)
			}
			if whole != c.whole || got.Total != c.total || len(q.counted) != counted {
				t.Fatalf("CountRequest: whole %v, total %d, %d counted (%q); want %v, %d, %d",
					whole, got.Total, len(q.counted), q.counted, c.whole, c.total, counted)
			}
			for k, s := range q.counted[:c.newest] {
				if want := fmt.Sprint(len(msgs) - 1 - k); !strings.HasPrefix(s, want) {
					t.Fatalf("counted %d-th %q, want the newest first (message %s)", k, s, want)
				}
			}
			if c.whole && len(got.Messages) != len(msgs) {
				t.Fatalf("a whole count has %d figures, want %d", len(got.Messages), len(msgs))
			}
		})
	}
}

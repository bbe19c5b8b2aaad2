package turns

import (
	"bytes"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestAppendSnapshotIsMarshal: a model-snapshot entry's data is the bytes
// encoding/json writes for its struct, plain names and names that need
// escaping alike, with and without a timestamp.
func TestAppendSnapshotIsMarshal(t *testing.T) {
	type data struct {
		Timestamp *int64 `json:"timestamp,omitempty"`
		Provider  string `json:"provider"`
		ModelAPI  string `json:"modelApi"`
		ModelID   string `json:"modelId"`
	}
	names := []string{"", "anthropic", "openai-responses", "claude-opus-4-6", "gpt-5.4", "models/gemini-3-pro", "a\"b", `a\b`,
		"tab\t", "bell\bform\f", "line\u2028", "bad\xff", "<&>", "é", "del\x7f"}
	for _, p := range names {
		for _, m := range names {
			for _, ts := range []int64{-1, 0, 1776000000000} {
				s := snapshot{provider: p, api: "api-" + m, model: m}
				d := data{Provider: s.provider, ModelAPI: s.api, ModelID: s.model}
				if ts >= 0 {
					d.Timestamp = &ts
				}
				want, err := transcript.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				if got := appendSnapshot(nil, s, ts, ts >= 0); !bytes.Equal(got, want) {
					t.Fatalf("got %s\nwant %s", got, want)
				}
			}
		}
	}
}

package turns

import (
	"bytes"
	"strconv"
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

// TestNumberIsParseFloat: the usage counts' number reader gives what
// strconv.ParseFloat gives (0 and false where it fails or the value is no
// JSON number), on its fast path and off it.
func TestNumberIsParseFloat(t *testing.T) {
	for _, v := range []string{"0", "7", "12", "123456789012345", "1234567890123456", "999999999999999", "-0", "-12",
		"1.5", "1e3", "1E400", "-1e400", "00", "01", "", "a", "12a", "true", `"1"`, "9007199254740993"} {
		want, err := strconv.ParseFloat(v, 64)
		wantOK := err == nil && v != "" && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
		if !wantOK {
			want = 0
		}
		if got, ok := number([]byte(v)); got != want || ok != wantOK {
			t.Errorf("number(%q) = %v, %v; want %v, %v", v, got, ok, want, wantOK)
		}
	}
}

package tokens

import (
	"encoding/json"
	"os"
	"testing"
)

// TestSplitMatchesPatterns checks the hand-written pre-tokenizers against
// the pieces tiktoken's split patterns give under a backtracking engine
// (testdata/pieces.json, written by testdata/gen_pieces.py with Python's
// regex module, whose semantics are those of tiktoken's fancy-regex).
func TestSplitMatchesPatterns(t *testing.T) {
	raw, err := os.ReadFile("testdata/pieces.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text   string   `json:"text"`
		O200k  []string `json:"o200k"`
		Cl100k []string `json:"cl100k"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		for _, p := range []struct {
			name  string
			split func([]byte, int) int
			want  []string
		}{{"o200k", splitO200k, c.O200k}, {"cl100k", splitCl100k, c.Cl100k}} {
			got := pieces([]byte(c.Text), p.split)
			for i := range max(len(got), len(p.want)) {
				if i >= len(got) || i >= len(p.want) || got[i] != p.want[i] {
					t.Errorf("%s: %q: piece %d differs: got %q, want %q", p.name, c.Text, i, got[i:min(i+3, len(got))], p.want[i:min(i+3, len(p.want))])
					break
				}
			}
		}
	}
}

func pieces(s []byte, split func([]byte, int) int) []string {
	var out []string
	for i := 0; i < len(s); {
		j := split(s, i)
		out = append(out, string(s[i:j]))
		i = j
	}
	return out
}

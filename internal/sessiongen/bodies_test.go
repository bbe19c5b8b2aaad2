package sessiongen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestBodiesAreRealAndStable: every format and variant gives valid JSON,
// the same bytes for the same seed and other bytes for another, and every
// part it lists is a whole string of the body (or inside one: a data URL, a
// call id with a signature folded in).
func TestBodiesAreRealAndStable(t *testing.T) {
	for _, f := range BodyFormats {
		for _, v := range BodyVariants[f] {
			a := Bodies(BodyConfig{Seed: 7, Format: f, Variant: v})
			b := Bodies(BodyConfig{Seed: 7, Format: f, Variant: v})
			c := Bodies(BodyConfig{Seed: 8, Format: f, Variant: v})
			if !json.Valid(a.JSON) {
				t.Fatalf("%s/%s: invalid JSON", f, v)
			}
			if !bytes.Equal(a.JSON, b.JSON) || bytes.Equal(a.JSON, c.JSON) {
				t.Errorf("%s/%s: not a function of the seed", f, v)
			}
			all := string(a.JSON)
			kinds := map[string]int{}
			for _, p := range a.Parts {
				kinds[p.Kind]++
				quoted, _ := json.Marshal(p.Value)
				if !strings.Contains(all, strings.Trim(string(quoted), `"`)) {
					t.Errorf("%s/%s: %s part %.40q is not in the body", f, v, p.Kind, p.Value)
				}
			}
			if kinds[PartText] < 8 {
				t.Errorf("%s/%s: %d texts", f, v, kinds[PartText])
			}
			t.Logf("%s/%s: %d bytes, parts %v", f, v, len(a.JSON), kinds)
		}
	}
}

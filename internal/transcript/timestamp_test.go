package transcript

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// parseTimestampFloat is ParseTimestamp's reading of a JSON number without
// the digits' fast path (exactDigits).
func parseTimestampFloat(raw []byte) (int64, bool) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, false
	}
	return int64(f), true
}

// TestParseTimestampNumbers holds ParseTimestamp's reading of a number to
// ParseFloat's, at the lengths around the fast path's limit (15 digits)
// and for numbers it leaves to ParseFloat.
func TestParseTimestampNumbers(t *testing.T) {
	cases := []string{"0", "7", "00012", "1733000000000", "999999999999999", "1000000000000000",
		"9007199254740993", "12345678901234567890", "-1733000000000", "1733000000000.9", "1.7e12", "1e400", "", "-", "12a"}
	r := rand.New(rand.NewPCG(31, 6))
	for n := 1; n <= 18; n++ {
		for range 200 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte('0' + r.IntN(10))
			}
			cases = append(cases, string(b))
		}
	}
	for _, c := range cases {
		got, gotOK := ParseTimestamp([]byte(c))
		want, wantOK := parseTimestampFloat([]byte(c))
		if c == "" {
			want, wantOK = 0, false
		}
		if got != want || gotOK != wantOK {
			t.Errorf("ParseTimestamp(%q) = %d, %v; ParseFloat reads %d, %v", c, got, gotOK, want, wantOK)
		}
	}
}

// FuzzParseTimestamp holds ParseTimestamp's reading of a number to
// ParseFloat's.
func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"1733000000000", "999999999999999", "1000000000000000", "0", "1.5", "-3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || raw[0] == '"' {
			return
		}
		got, gotOK := ParseTimestamp(raw)
		if want, wantOK := parseTimestampFloat(raw); got != want || gotOK != wantOK {
			t.Fatalf("ParseTimestamp(%q) = %d, %v; ParseFloat reads %d, %v", raw, got, gotOK, want, wantOK)
		}
	})
}

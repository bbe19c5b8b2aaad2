package turns

import "testing"

const zeroSnap = `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`

func TestUsage(t *testing.T) {
	full := `{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}`
	cases := []ruleCase{
		{
			name: "complete usage untouched, byte for byte",
			in:   `[{"role":"assistant","content":[],"usage":` + full + `}]`,
			want: `[{"role":"assistant","content":[],"usage":` + full + `}]`,
		},
		{
			name:   "missing usage and non-object usage become the zero snapshot",
			in:     `[{"role":"assistant","content":[]},{"role":"assistant","content":[],"usage":null},{"role":"user","content":"q"}]`,
			want:   `[{"role":"assistant","content":[],"usage":` + zeroSnap + `},{"role":"assistant","content":[],"usage":` + zeroSnap + `},{"role":"user","content":"q"}]`,
			report: map[string]int{"normalised": 2},
		},
		{
			name: "missing counts become 0, total is the sum, other members kept in place",
			in:   `[{"role":"assistant","usage":{"input":7,"extra":true,"output":"x"}}]`,
			want: `[{"role":"assistant","usage":{"input":7,"extra":true,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":7}}]`,
		},
		{
			name: "given total kept; cost completed when one field is a number, dropped when none is",
			in:   `[{"role":"assistant","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":99,"cost":{"input":0.5,"output":0.25}}},{"role":"assistant","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":"a"}}}]`,
			want: `[{"role":"assistant","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":99,"cost":{"input":0.5,"output":0.25,"cacheRead":0,"cacheWrite":0,"total":0.75}}},{"role":"assistant","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3}}]`,
		},
		{
			name:   "pre-compaction usage zeroed, by position and by timestamp",
			in:     `[{"role":"assistant","timestamp":5000,"usage":` + full + `},{"role":"compactionSummary","timestamp":2000},{"role":"assistant","timestamp":1500,"usage":` + full + `},{"role":"assistant","timestamp":2000,"usage":` + full + `},{"role":"assistant","timestamp":2001,"usage":` + full + `}]`,
			want:   `[{"role":"assistant","timestamp":5000,"usage":` + zeroSnap + `},{"role":"compactionSummary","timestamp":2000},{"role":"assistant","timestamp":1500,"usage":` + zeroSnap + `},{"role":"assistant","timestamp":2000,"usage":` + zeroSnap + `},{"role":"assistant","timestamp":2001,"usage":` + full + `}]`,
			report: map[string]int{"zeroed": 3},
		},
		{
			name: "compaction without timestamp zeroes by position only",
			in:   `[{"role":"assistant","timestamp":1,"usage":` + full + `},{"role":"compactionSummary"},{"role":"assistant","timestamp":2,"usage":` + full + `}]`,
			want: `[{"role":"assistant","timestamp":1,"usage":` + zeroSnap + `},{"role":"compactionSummary"},{"role":"assistant","timestamp":2,"usage":` + full + `}]`,
		},
	}
	runCases(t, cases, Usage())
}

func FuzzUsage(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"assistant","usage":{"input":7,"output":"x","cost":{"input":1e308,"output":1e308}}}]`,
		`[{"role":"assistant","timestamp":5000,"usage":{}},{"role":"compactionSummary","timestamp":2000}]`,
	}, Usage())
}

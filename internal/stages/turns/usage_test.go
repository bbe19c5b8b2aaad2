package turns

import (
	"bytes"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

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

// usageShapes are usage values scanUsage must judge as normaliseUsage
// does: complete, incomplete, duplicated keys (the first counts), a cost
// that is not an object, out-of-range numbers, escaped keys, space.
var usageShapes = []string{
	`{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}`,
	`{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18}`,
	`{"input":10,"output":5,"cacheRead":1,"cacheWrite":2}`,
	`{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18,"cost":null}`,
	`{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18,"cost":{"input":0.1}}`,
	`{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18,"cost":{"input":"a"}}`,
	`{"input":"10","output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18,"input":10}`,
	`{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":1e999}`,
	`{"\u0069nput":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18}`,
	`{ "input" : 10 , "output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18 }`,
	`{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":1,"output":1,"cacheRead":1,"cacheWrite":1,"total":4},"cost":{"input":"x"}}`,
	`{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"":{"input":"x"},"cost":{"":1,"input":1,"output":1,"cacheRead":1,"cacheWrite":1,"total":4}}`,
	`{}`, `null`, `[]`, `"usage"`, `{"input":1,`,
	`{"output":2,"totalTokens":"x","cost":{"total":1,"input":"y"},"input":1.5e3,"cost":{}}`,
	`{"input":1e308,"output":1e308,"cacheRead":0,"cacheWrite":0}`,
	`{"cost":{"input":0.1,"output":0.2}, "input":1}`,
	`{"input":10,"output":1e388,"cacheRead":0,"cacheWrite":0}`,
}

// referenceUsage is the usage normalisation written plainly on parsed
// members (the rule's code before issue 22): the usage completed in
// place, re-encoded when anything changed.
func referenceUsage(raw []byte) (out []byte, changed bool) {
	u, err := transcript.ParseObject(raw)
	if err != nil {
		return nil, false
	}
	changed = referenceCounts(&u, jsontape.UsageCountKeys, "totalTokens")
	if v, ok := u.Get("cost"); ok {
		if cost, err := transcript.ParseObject(v); err == nil {
			finite := false
			for _, k := range jsontape.CostCountKeys {
				if _, ok := cost.Number(k); ok {
					finite = true
				}
			}
			if !finite {
				changed = u.Delete("cost") || changed
			} else if referenceCounts(&cost, jsontape.CostCountKeys, "total") {
				u.Set("cost", cost.AppendJSON(nil))
				changed = true
			}
		}
	}
	return u.AppendJSON(nil), changed
}

// referenceCounts sets each of the four counts of keys that is not a
// number to 0, and total to their sum when it is not a number.
func referenceCounts(o *transcript.Object, keys [5]string, total string) bool {
	changed := false
	sum := 0.0
	for _, k := range keys[:4] {
		v, ok := o.Number(k)
		if !ok {
			changed = o.Set(k, []byte("0")) || changed
			v = 0 // what the count now is: Number gives ±Inf for 1e999
		}
		sum += v
	}
	if _, ok := o.Number(total); !ok {
		changed = o.Set(total, appendNumber(nil, sum)) || changed
	}
	return changed
}

// checkScanUsage holds scanUsage and appendNormalUsage to referenceUsage
// on one value: valid is ParseObject's verdict, normal is "no change",
// and a usage that is not normal is written byte for byte as the
// reference writes it.
func checkScanUsage(t *testing.T, raw []byte) {
	t.Helper()
	valid, normal := scanUsage(raw, true)
	_, err := transcript.ParseObject(raw)
	var p plainUsage
	plain := p.read(raw)
	if plain && (err != nil || !valid || normal != p.normal()) {
		t.Fatalf("plainUsage.read(%s) accepts what scanUsage finds valid %v, normal %v, the plain read normal %v (ParseObject error %v)", raw, valid, normal, p.normal(), err)
	}
	if valid != (err == nil) {
		t.Fatalf("scanUsage(%s): valid %v, ParseObject error %v", raw, valid, err)
	}
	if !valid {
		return
	}
	want, changed := referenceUsage(raw)
	if normal == changed {
		t.Fatalf("scanUsage(%s): normal %v, the reference changes it: %v", raw, normal, changed)
	}
	if got := appendNormalUsage(nil, raw); !normal && !bytes.Equal(got, want) {
		t.Fatalf("appendNormalUsage(%s):\n got %s\nwant %s", raw, got, want)
	}
	if got := p.appendNormal(nil, raw); plain && !normal && !bytes.Equal(got, want) {
		t.Fatalf("plainUsage.appendNormal(%s):\n got %s\nwant %s", raw, got, want)
	}
}

func TestScanUsage(t *testing.T) {
	wantNormal := map[int]bool{0: true, 1: true, 3: true, 8: true, 9: true, 10: true, 11: true}
	for i, u := range usageShapes {
		checkScanUsage(t, []byte(u))
		if _, normal := scanUsage([]byte(u), true); normal != wantNormal[i] {
			t.Errorf("scanUsage(%s): normal %v, want %v", u, normal, wantNormal[i])
		}
	}
	if valid, _ := scanUsage(nil, false); valid {
		t.Error("an absent usage is valid")
	}
}

// TestPlainUsage: the one-pass read accepts the usages runtimes write
// (OpenClaw's members and cost, the generator's order, a negative or
// fractional cost, the four counts without totalTokens), tells the normal
// from the incomplete, and leaves everything else to readUsage; what it
// accepts, checkScanUsage holds to the reference, its completion included.
func TestPlainUsage(t *testing.T) {
	normal := []string{
		usageShapes[0], usageShapes[1],
		`{"cacheRead":0,"cacheWrite":0,"input":3272,"output":91,"totalTokens":3363}`,
		`{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`,
		`{"input":123456789012345,"output":-0,"cacheRead":-1.5,"cacheWrite":0.00000000000000000001,"totalTokens":1,"cost":{"total":1,"cacheWrite":0,"cacheRead":0,"output":0.25,"input":-0.5}}`,
	}
	incomplete := map[string]string{
		usageShapes[2]: `{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18}`,
		`{"cacheRead":0,"cacheWrite":0,"input":3272,"output":91}`:                               `{"cacheRead":0,"cacheWrite":0,"input":3272,"output":91,"totalTokens":3363}`,
		`{"totalTokens":7,"input":1.5}`:                                                         `{"totalTokens":7,"input":1.5,"output":0,"cacheRead":0,"cacheWrite":0}`,
		`{"output":-2.25,"cost":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"total":1}}`: `{"output":-2.25,"cost":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"total":1},"input":0,"cacheRead":0,"cacheWrite":0,"totalTokens":-2.25}`,
	}
	refused := []string{
		usageShapes[3], usageShapes[4], usageShapes[8], usageShapes[9], usageShapes[10], usageShapes[11], usageShapes[12],
		`{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"service":"x"}`,
		`{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":1e1}`,
		`{"input":01,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10}`,
		`{"input":1234567890123456,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10}`,
		`{"input":1.000000000000000000001,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10}`,
		`{"input":1.,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10}`,
		`{"input":-,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10}`,
		`{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"input":5,"totalTokens":10}`,
		`{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"cost":{}}}`,
		`{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0}}`,
		`{"input":1,"output":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0}}`,
		`{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10}x`,
		`{"in\"":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10}`,
		`{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10`, `{"input"`, `{`, ``,
	}
	for _, u := range normal {
		var p plainUsage
		if !p.read([]byte(u)) || !p.normal() {
			t.Errorf("plainUsage.read(%s): plain and normal %v %v, want true true", u, p.read([]byte(u)), p.normal())
		}
		checkScanUsage(t, []byte(u))
	}
	for u, want := range incomplete {
		var p plainUsage
		if !p.read([]byte(u)) || p.normal() {
			t.Errorf("plainUsage.read(%s): plain and normal %v %v, want true false", u, p.read([]byte(u)), p.normal())
			continue
		}
		if got := p.appendNormal(nil, []byte(u)); string(got) != want {
			t.Errorf("plainUsage.appendNormal(%s):\n got %s\nwant %s", u, got, want)
		}
		checkScanUsage(t, []byte(u))
	}
	for _, u := range refused {
		var p plainUsage
		if p.read([]byte(u)) {
			t.Errorf("plainUsage.read(%s) = true, want false", u)
		}
	}
}

// TestScanUsageAllocations: a normal usage is judged without an
// allocation (it is neither parsed nor encoded), and one that is not is
// written into its buffer without another, by either path.
func TestScanUsageAllocations(t *testing.T) {
	raw := []byte(usageShapes[0])
	if n := testing.AllocsPerRun(100, func() { scanUsage(raw, true) }); n != 0 {
		t.Errorf("scanUsage of a normal usage: %v allocations, want 0", n)
	}
	incomplete := []byte(usageShapes[4])
	buf := make([]byte, 0, usageBuffer)
	if n := testing.AllocsPerRun(100, func() { appendNormalUsage(buf[:0], incomplete) }); n != 0 {
		t.Errorf("appendNormalUsage into a buffer of room: %v allocations, want 0", n)
	}
	plain := []byte(usageShapes[2])
	if n := testing.AllocsPerRun(100, func() {
		var p plainUsage
		if p.read(plain) {
			p.appendNormal(buf[:0], plain)
		}
	}); n != 0 {
		t.Errorf("a plain usage read and completed into a buffer of room: %v allocations, want 0", n)
	}
}

func FuzzScanUsage(f *testing.F) {
	for _, u := range usageShapes {
		f.Add([]byte(u))
	}
	f.Fuzz(checkScanUsage)
}

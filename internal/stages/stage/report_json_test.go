package stage

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestReportAppendJSONIsMarshal: the report's own encoder writes the bytes
// transcript.Marshal (encoding/json) writes, for empty, full and random
// reports, plain strings and strings that need escaping (control
// characters, quotes, \b, U+2028, invalid UTF-8, HTML characters).
func TestReportAppendJSONIsMarshal(t *testing.T) {
	odd := []string{"a\"b", `back\slash`, "tab\there", "bell\bform\f", "line\u2028sep", "bad\xffutf8", "<html>&", "é", "nul\x00", "del\x7f"}
	plain := []string{"pairing", "tool_call_ids", "usage", "blank_blocks", "contract", "turns", "a", "z", "A_1"}
	reports := []*Report{
		NewReport(),
		{},
		{Contract: &ContractReport{}},
		{SessionRepair: &SessionRepairReport{}},
		{SessionRepair: &SessionRepairReport{DroppedLines: 3, KeepPointsMissing: 2}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string {
		if rng.IntN(8) == 0 {
			return odd[rng.IntN(len(odd))]
		}
		return plain[rng.IntN(len(plain))]
	}
	for range 2000 {
		r := NewReport()
		old := map[string]map[string]int{} // the counts as the map of maps they once were
		for range rng.IntN(12) {
			stage, what, n := pick(), pick(), rng.IntN(5)
			r.Add(stage, what, n)
			if n > 0 {
				if old[stage] == nil {
					old[stage] = map[string]int{}
				}
				old[stage][what] += n
			}
		}
		if got, want := mustJSON(t, r.Stages), mustJSON(t, old); !bytes.Equal(got, want) {
			t.Fatalf("counts:\n got %s\nwant %s (the map of maps)", got, want)
		}
		r.Changed = rng.IntN(2) == 0
		r.Images = ImageReport{rng.IntN(9), rng.IntN(9), rng.IntN(9), rng.Int64N(1 << 40), -rng.Int64N(9)}
		r.Pruning = PruningReport{rng.IntN(2) == 0, rng.IntN(9), rng.IntN(9)}
		r.BytesIn, r.BytesOut = rng.IntN(1<<30), rng.IntN(1<<30)
		if rng.IntN(3) == 0 {
			r.SessionRepair = &SessionRepairReport{rng.IntN(3), rng.IntN(3)}
		}
		if rng.IntN(3) == 0 {
			c := &ContractReport{Family: pick(), ByRule: map[string]int{}}
			for range rng.IntN(4) {
				c.Violations = append(c.Violations, fmt.Sprintf("messages[%d].content: %s", rng.IntN(99), pick()))
				c.ByRule[pick()]++
			}
			r.Contract = c
		}
		reports = append(reports, r)
	}
	for i, r := range reports {
		want, err := transcript.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.AppendJSON([]byte("prefix"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Fatalf("report %d:\n got %s\nwant prefix%s", i, got, want)
		}
	}
}

// TestReportAppendJSONKnowsEveryField: a report with every field set (by
// reflection, nested ones too) is written as encoding/json writes it, so
// a field added to Report or its parts and not to AppendJSON fails here.
func TestReportAppendJSONKnowsEveryField(t *testing.T) {
	var r Report
	fill(reflect.ValueOf(&r).Elem())
	want, err := transcript.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := r.AppendJSON(nil); !bytes.Equal(got, want) {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

// fill sets v and everything in it to a non-zero value.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.String:
		v.SetString("s")
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[Counts]() {
			var c Counts
			c.add("s", "s", 7)
			v.Set(reflect.ValueOf(c))
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		v.SetMapIndex(k, e)
	default:
		panic("fill: no value for " + v.Type().String())
	}
}

// TestReportAppendJSONContextFit: report.context_fit is written as
// transcript.Marshal writes it, a bound counter's name (its "×") included.
func TestReportAppendJSONContextFit(t *testing.T) {
	for _, name := range []string{"o200k_base", "o200k_base×1.35 (claude bound)"} {
		r := NewReport()
		r.ContextFit = &ContextFitReport{Mode: "trim", Tokenizer: name, Window: 200_000, Reserve: 32_000, Room: 168_000,
			TokensBefore: 1_105_843, TokensAfter: 167_578, HardCleared: 8283, TurnsDropped: 2335, MessagesDropped: 16434, Fits: true}
		got, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := transcript.Marshal(r)
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// mustJSON is transcript.Marshal's encoding of v.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := transcript.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCounts: Get, Of, Len and List read what Add counted, in order, and a
// report with a small job's counts is one allocation, not a map per rule.
func TestCounts(t *testing.T) {
	r := NewReport()
	r.Add("usage", "normalised", 4)
	r.Add("anthropic_turns", "merged", 1)
	r.Add("usage", "zeroed", 0)
	r.Add("anthropic_turns", "merged", 1)
	r.Add("usage", "zeroed", 2)
	c := r.Stages
	if c.Get("anthropic_turns", "merged") != 2 || c.Get("usage", "zeroed") != 2 || c.Get("usage", "none") != 0 || c.Get("none", "merged") != 0 {
		t.Errorf("Get: %v", c)
	}
	if got := c.Of("usage"); len(got) != 2 || got["normalised"] != 4 || got["zeroed"] != 2 || c.Of("none") != nil {
		t.Errorf("Of: %v", got)
	}
	want := []Count{{"anthropic_turns", "merged", 2}, {"usage", "normalised", 4}, {"usage", "zeroed", 2}}
	if c.Len() != 2 || !slices.Equal(c.List(), want) {
		t.Errorf("Len %d, List %v, want 2, %v", c.Len(), c.List(), want)
	}
	if got := c.String(); got != `{"anthropic_turns":{"merged":2},"usage":{"normalised":4,"zeroed":2}}` {
		t.Errorf("String: %s", got)
	}
	if n := testing.AllocsPerRun(100, func() {
		r := NewReport()
		for _, s := range []string{"usage", "model_snapshot", "invalid_signatures", "anthropic_turns"} {
			r.Add(s, "changed", 1)
		}
	}); n > 1 {
		t.Errorf("a report of four counts: %v allocations, want 1", n)
	}
}

package jsontape

import (
	"encoding/json"
	"testing"
	"unsafe"
)

// usageCases are usages and whether NormalUsage takes them whole; they are
// also FuzzNormalUsage's seeds.
var usageCases = []struct {
	raw   string
	whole bool
}{
	{`{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}`, true},
	{`{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15}`, true},
	{`{"totalTokens":15,"output":5,"input":10,"cacheWrite":0,"cacheRead":0}`, true},
	{`{"input":-1,"output":0.25,"cacheRead":0,"cacheWrite":0,"totalTokens":0}`, true},
	{`{"input":10,"output":5,"cacheRead":0,"cacheWrite":0}`, false},
	{`{"input":10, "output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15}`, false},
	{`{"input":10,"input":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15}`, false},
	{`{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"model":"x"}`, false},
	{`{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.1}}`, false},
	{`{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":1e3}`, false},
	{`{"input":010,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15}`, false},
	{`{"input":"10","output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15}`, false},
	{`{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15}x`, false},
	{`{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15`, false},
	{`{}`, false},
	{`null`, false},
	{``, false},
}

func TestNormalUsage(t *testing.T) {
	for _, c := range usageCases {
		if got := NormalUsage([]byte(c.raw)); got != c.whole {
			t.Errorf("NormalUsage(%s) = %v, want %v", c.raw, got, c.whole)
		}
	}
}

// The scan records of a message whether its first usage is whole.
func TestScanRecordsWholeUsage(t *testing.T) {
	whole := usageCases[0].raw
	for _, c := range []struct {
		message string
		want    bool
	}{
		{`{"role":"assistant","usage":` + whole + `}`, true},
		{`{"role":"assistant","usage":` + whole + `,"usage":{}}`, true},
		{`{"role":"assistant","usage":{},"usage":` + whole + `}`, false},
		{`{"role":"assistant","usag\u0065":` + whole + `}`, true},
		{`{"role":"assistant","content":[{"type":"text","usage":` + whole + `}]}`, false},
		{`{"role":"assistant"}`, false},
	} {
		tapes, ok, err := SplitArray([]byte("["+c.message+"]"), 64, Parallel{})
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if got := tapes[0].Message(0).Marks&UsageWhole != 0; got != c.want {
			t.Errorf("%s: UsageWhole = %v, want %v", c.message, got, c.want)
		}
	}
}

// A whole usage read in one pass is still held to the depth limit: its
// cost is one level deeper than the usage.
func TestWholeUsageKeepsTheDepthLimit(t *testing.T) {
	data := []byte(`[{"role":"assistant","usage":` + usageCases[0].raw + `}]`)
	if _, _, err := SplitArray(data, 3, Parallel{}); err == nil {
		t.Fatal("a usage's cost at depth 4 passed a limit of 3")
	}
	tapes, _, err := SplitArray(data, 4, Parallel{})
	if err != nil || tapes[0].Message(0).Marks&UsageWhole == 0 {
		t.Fatalf("at the limit: %v, marks %b", err, tapes[0].Message(0).Marks)
	}
	if _, _, err := SplitArray([]byte(`[{"role":"assistant","usage":`+usageCases[1].raw+`x}]`), 64, Parallel{}); err == nil {
		t.Fatal("a whole usage followed by junk passed")
	}
}

// The scan marks a node whose first name or toolName is a string but no
// plain tool name.
func TestScanMarksToolNames(t *testing.T) {
	for _, c := range []struct {
		message string
		want    Marks
	}{
		{`{"role":"toolResult","toolName":"read"}`, 0},
		{`{"role":"toolResult","toolName":"mcp:read"}`, ToolNameOff},
		{`{"role":"toolResult","toolName":"read","toolName":"a b"}`, 0},
		{`{"role":"toolResult","toolName":"re\u0061d"}`, ToolNameOff},
		{`{"role":"toolResult","toolName":null}`, 0},
		{`{"role":"assistant","content":[{"type":"toolCall","name":"browser.open"}]}`, 0},
	} {
		tapes, ok, err := SplitArray([]byte("["+c.message+"]"), 64, Parallel{})
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if got := tapes[0].Message(0).Marks &^ UsageWhole; got != c.want {
			t.Errorf("%s: marks %b, want %b", c.message, got, c.want)
		}
	}
	tapes, _, err := SplitArray([]byte(`[{"role":"assistant","content":[{"type":"toolCall","name":"browser.open"},{"type":"toolCall","name":"read_file"}]}]`), 64, Parallel{})
	if err != nil {
		t.Fatal(err)
	}
	if blocks := tapes[0].BlocksOf(tapes[0].Message(0)); blocks[0].Marks != NameOff || blocks[1].Marks != 0 {
		t.Errorf("block marks %b, %b; want %b, 0", blocks[0].Marks, blocks[1].Marks, NameOff)
	}
}

// A tape entry keeps its size: a node is 40 bytes (its last fields fill
// what would be padding) and a member 12.
func TestEntrySizes(t *testing.T) {
	if n, m := unsafe.Sizeof(Node{}), unsafe.Sizeof(Member{}); n != 40 || m != 12 {
		t.Fatalf("a node is %d bytes and a member %d, want 40 and 12", n, m)
	}
}

// FuzzNormalUsage holds NormalUsage to encoding/json: a usage it takes
// whole is one JSON object whose five counts are numbers.
func FuzzNormalUsage(f *testing.F) {
	for _, c := range usageCases {
		f.Add([]byte(c.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !NormalUsage(raw) {
			return
		}
		var u map[string]any
		if err := json.Unmarshal(raw, &u); err != nil {
			t.Fatalf("NormalUsage(%s) is true, but it is no JSON object: %v", raw, err)
		}
		for _, k := range UsageCountKeys {
			if _, ok := u[k].(float64); !ok {
				t.Fatalf("NormalUsage(%s) is true, but its %s is %v", raw, k, u[k])
			}
		}
	})
}

// CountIndex finds each count of both lists, in either spelling of key,
// and nothing else.
func TestCountIndex(t *testing.T) {
	for _, keys := range []*[5]string{&UsageCountKeys, &CostCountKeys} {
		for k, key := range keys {
			if got, gotBytes := CountIndex(keys, key), CountIndex(keys, []byte(key)); got != k || gotBytes != k {
				t.Errorf("CountIndex(%v, %q) = %d, %d; want %d", *keys, key, got, gotBytes, k)
			}
		}
		for _, other := range []string{"", "cost", "inpux", "Input", "totalTokenz", "cacheread", "outputs", "x"} {
			if got := CountIndex(keys, other); got != -1 {
				t.Errorf("CountIndex(%v, %q) = %d, want -1", *keys, other, got)
			}
		}
	}
	if CountIndex(&UsageCountKeys, "total") != -1 || CountIndex(&CostCountKeys, "totalTokens") != -1 {
		t.Error("a list's last name is taken for the other's")
	}
}

// plainNumber takes what a runtime writes of a count, and nothing a reader
// of numbers might read otherwise.
func TestPlainNumbers(t *testing.T) {
	for raw, want := range map[string]int{"0": 1, "15,": 2, "-3}": 2, "0.25": 4, "123456789012345": 15, "1.": 0, "01": 0, "-": 0, "": 0,
		"1e3": 1, ".5": 0, "1234567890123456": 15, "0.123456789012345678901": 22} {
		if got := plainNumber([]byte(raw)); got != want {
			t.Errorf("plainNumber(%q) = %d, want %d", raw, got, want)
		}
	}
}

package media

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// copilotClaude drops thinking blocks before sending (§2.2, §3.8.1).
var copilotClaude = transcript.Target{Provider: "github-copilot", API: "openai-completions", Model: "claude-sonnet-4"}

func TestWeightedLen(t *testing.T) {
	tests := []struct {
		s    string
		want int64
	}{
		{"", 0},
		{"abc", 3},
		{"é", 1},
		{"😀", 2},            // one astral code point is two UTF-16 units
		{"中文", 8},           // U+4E2D U+6587
		{"あア", 8},           // kana, inside U+2E80-U+9FFF
		{"한", 4},            // Hangul syllable
		{"ꀀ", 4},            // U+A000 Yi
		{"豈", 4},            // U+F900 compatibility ideograph
		{"\U00020000", 4},   // Extension B counts once, weighted
		{"\U0002FA1F", 4},   // last of the range
		{"\U0002FA20", 2},   // just past it
		{"\u2E7F\u2E80", 5}, // just before the range, then its first
		{"！", 1},            // U+FF01 fullwidth is not in the ranges
		{"\uD7AF\uD7B0", 5}, // end of Hangul syllables range, then outside
	}
	for _, tc := range tests {
		if got := weightedLen(tc.s); got != tc.want {
			t.Errorf("weightedLen(%q) = %d, want %d", tc.s, got, tc.want)
		}
		if got := rawWeightedLen(transcript.JSONString(tc.s)); got != tc.want {
			t.Errorf("rawWeightedLen(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestRawWeightedLenEscapes(t *testing.T) {
	tests := []struct {
		raw  string
		want int64
	}{
		{`"\u4e2d"`, 4},
		{`"\ud840\udc00"`, 4}, // U+20000 escaped as a pair
		{`"\ud83d\ude00"`, 2}, // an escaped emoji
		{`"\ud800"`, 1},       // a lone surrogate is one unit in JavaScript
		{`"\udc00x"`, 2},
		{`"\ud800\u0041"`, 2}, // high surrogate without its low half
		{`"a\nb\"\\\/"`, 6},
		{`12`, 0}, // not a string
		{``, 0},
	}
	for _, tc := range tests {
		if got := rawWeightedLen([]byte(tc.raw)); got != tc.want {
			t.Errorf("rawWeightedLen(%s) = %d, want %d", tc.raw, got, tc.want)
		}
	}
}

func TestMessageEstimate(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want int64
	}{
		{"user string", `{"role":"user","content":"中a😀"}`, 4 + 1 + 2},
		{"user array", `{"role":"user","content":[{"type":"text","text":"abc"},{"type":"image","data":"x"},{"type":"other","text":"zz"}]}`, 3 + 8000},
		{"user without content", `{"role":"user"}`, 0},
		{"tool result", `{"role":"toolResult","content":[{"type":"text","text":"ab"},{"type":"text","text":"c"},{"type":"image"}]}`, 3 + 8000},
		{"tool result string", `{"role":"toolResult","content":"abcd"}`, 4},
		{"assistant", `{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"thinking","thinking":"abc","thinkingSignature":"sig"},{"type":"redacted_thinking","data":"DATA"}]}`, 2 + 3 + 3 + 4},
		{"assistant tool calls", `{"role":"assistant","content":[{"type":"toolCall","id":"c","arguments":{"path": "a.go", "n": 1.50}},{"type":"toolCall","id":"d"},{"type":"toolUse","id":"e","input":{"x":1}},{"type":"functionCall","id":"f","arguments":{"x":1}}]}`, int64(len(`{"path":"a.go","n":1.5}`)) + 2},
		{"assistant string", `{"role":"assistant","content":"hey"}`, 3},
		{"custom", `{"role":"custom","content":"` + "x" + `"}`, 256},
		{"compaction summary", `{"role":"compactionSummary","summary":"long"}`, 256},
		{"legacy tool role", `{"role":"tool","content":"x"}`, 256},
		{"not an object", `null`, 256},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := transcript.FromMessages([]byte("["+tc.msg+"]"), transcript.Target(stagetest.Anthropic))
			if err != nil {
				t.Fatal(err)
			}
			e := newEstimator(policy.Resolve(stagetest.Anthropic), tr.Messages)
			if got := e.message(0, tr.Messages[0]); got != tc.want {
				t.Errorf("estimate %d, want %d", got, tc.want)
			}
		})
	}
}

// TestEstimateDroppedView checks the estimate of a target that drops
// thinking before sending: thinking counts only in the latest assistant,
// and a turn left empty counts the omitted-reasoning text.
func TestEstimateDroppedView(t *testing.T) {
	const stringContent = "string content: not the latest array"
	in := `[{"role":"assistant","content":[{"type":"thinking","thinking":"abcd","thinkingSignature":"xy"},{"type":"text","text":"a"}]},` +
		`{"role":"assistant","content":[{"type":"redacted_thinking","data":"abcdef"}]},` +
		`{"role":"assistant","content":[]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"abcd"}]},` +
		`{"role":"assistant","content":"` + stringContent + `"}]`
	tr, err := transcript.FromMessages([]byte(in), transcript.Target(copilotClaude))
	if err != nil {
		t.Fatal(err)
	}
	e := newEstimator(policy.Resolve(copilotClaude), tr.Messages)
	want := []int64{1, int64(len(reasoningOmittedText)), 0, 4, int64(len(stringContent))}
	for i, w := range want {
		if got := e.message(i, tr.Messages[i]); got != w {
			t.Errorf("message %d: estimate %d, want %d", i, got, w)
		}
	}
}

// TestJSONStringifyLen pins down the length of JSON.stringify(JSON.parse(raw)).
func TestJSONStringifyLen(t *testing.T) {
	tests := []struct {
		raw  string
		want string // what JSON.stringify prints
	}{
		{`{}`, `{}`},
		{` { "a" : [ 1 , 2 ] } `, `{"a":[1,2]}`},
		{`[]`, `[]`},
		{`{"a":1,"b":{"c":null},"d":[true,false]}`, `{"a":1,"b":{"c":null},"d":[true,false]}`},
		{`{"a":1,"a":"long"}`, `{"a":"long"}`},
		{`{"a":1,"\u0061":22}`, `{"a":22}`},
		{`{"\ud800":1,"\udc00":2}`, `{"\ud800":1,"\udc00":2}`},
		{`"\u00e9\/"`, `"é/"`},
		{`"\u0001\b\n"`, `"\u0001\b\n"`},
		{`"<&>\u2028"`, "\"<&>\u2028\""},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\ud83d"`, `"\ud83d"`},
		{`1.0`, `1`},
		{`-0`, `0`},
		{`1.50`, `1.5`},
		{`1e2`, `100`},
		{`1E21`, `1e+21`},
		{`123456789012345678901`, `123456789012345680000`},
		{`1.5e300`, `1.5e+300`},
		{`0.000001`, `0.000001`},
		{`1e-7`, `1e-7`},
		{`-1.25e-7`, `-1.25e-7`},
		{`0.1`, `0.1`},
		{`12.5e-3`, `0.0125`},
		{`1e400`, `null`},
		{`-1e400`, `null`},
		{`1e-400`, `0`},
		{`5e-324`, `5e-324`},
		{`"中"`, `"中"`},
	}
	for _, tc := range tests {
		got, ok := jsonStringifyLen([]byte(tc.raw))
		if !ok || got != int64(utf16Len(tc.want)) {
			t.Errorf("jsonStringifyLen(%s) = %d (%v), want %d (%s)", tc.raw, got, ok, utf16Len(tc.want), tc.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `[1,]`, `{"a":1}x`, `"open`, `[1 2]`} {
		if _, ok := jsonStringifyLen([]byte(bad)); ok {
			t.Errorf("jsonStringifyLen(%q) accepted bad JSON", bad)
		}
	}
}

func TestToolFilter(t *testing.T) {
	tests := []struct {
		allow, deny []string
		name        string
		want        bool
	}{
		{nil, nil, "anything", true},
		{nil, nil, "", true},
		{[]string{"read"}, nil, "read", true},
		{[]string{"read"}, nil, " READ ", true},
		{[]string{"read"}, nil, "reader", false},
		{[]string{"re*"}, nil, "read", true},
		{[]string{"*d"}, nil, "read", true},
		{[]string{"r*a*d"}, nil, "read", true},
		{[]string{"r*a*d"}, nil, "rad", true},
		{[]string{"r*x*d"}, nil, "read", false},
		{[]string{"*"}, nil, "", true},
		{[]string{"a*a"}, nil, "a", false},
		{[]string{"ex*"}, []string{"exec"}, "exec", false}, // deny wins
		{[]string{"ex*"}, []string{"exec"}, "expand", true},
		{nil, []string{"exec*"}, "exec_cmd", false},
		{nil, []string{"  "}, "x", true}, // blank patterns are ignored
		{[]string{""}, nil, "x", true},
		{nil, []string{"Browser"}, "\u3000browser\uFEFF", false}, // JavaScript trim
	}
	for _, tc := range tests {
		f := newToolFilter(tc.allow, tc.deny)
		if got := f.prunable(tc.name); got != tc.want {
			t.Errorf("allow %q deny %q: prunable(%q) = %v, want %v", tc.allow, tc.deny, tc.name, got, tc.want)
		}
	}
}

// FuzzJSONStringifyLen checks the JSON measurer against encoding/json: it
// reads every valid JSON text (it is lenient with invalid ones, which the
// codec never hands it, but must not panic on them), and a valid text
// compacted by encoding/json measures the same.
func FuzzJSONStringifyLen(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2.50,-0,1e21,"x\u00e9\n"],"a":null}`, `"\ud800"`, `[true,false,null]`, `{"k":{"n":1e-7}}`, `1e400`, `{`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, ok := jsonStringifyLen(raw)
		if !json.Valid(raw) {
			return
		}
		if !ok {
			t.Fatalf("jsonStringifyLen(%q) rejected valid JSON", raw)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			t.Fatal(err)
		}
		if m, ok := jsonStringifyLen(compact.Bytes()); !ok || m != n {
			t.Fatalf("compact form measures %d (%v), original %d", m, ok, n)
		}
	})
}

// FuzzRawWeightedLen checks that measuring a raw JSON string gives the
// estimate and the UTF-16 length of the string it decodes to (lone surrogates aside, which
// decode to U+FFFD: one unit either way).
func FuzzRawWeightedLen(f *testing.F) {
	for _, s := range []string{`"abc"`, `"\u4e2d\ud840\udc00"`, `"😀\n\\"`, `"\ud800x"`, `"한"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var s string
		if json.Unmarshal(raw, &s) != nil || !bytes.HasPrefix(raw, []byte(`"`)) || !bytes.HasSuffix(raw, []byte(`"`)) {
			return // the codec hands over string values without surrounding space
		}
		if got, want := rawWeightedLen(raw), weightedLen(s); got != want {
			t.Fatalf("rawWeightedLen(%s) = %d, weightedLen(%q) = %d", raw, got, s, want)
		}
		if got, want := rawUTF16Len(raw), utf16Len(s); got != want {
			t.Fatalf("rawUTF16Len(%s) = %d, utf16Len(%q) = %d", raw, got, s, want)
		}
		if got := rawWeightedLen(transcript.JSONString(s)); got != weightedLen(s) {
			t.Fatalf("re-encoded %q measures %d, want %d", s, got, weightedLen(s))
		}
	})
}

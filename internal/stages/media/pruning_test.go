package media

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// pruneSettings are the §3.18 defaults with the TTL gate open (the last
// cache touch was exactly one TTL ago) and the given window.
func pruneSettings(windowTokens int) stage.Settings {
	return stage.Settings{
		Request: settings.Request{ContextWindowTokens: new(windowTokens), NowMs: new(int64(1_776_000_300_000))},
		Pruning: settings.Pruning{
			Mode:                 "cache-ttl",
			TTL:                  settings.Duration(300_000 * time.Millisecond),
			LastCacheTouchMs:     1_776_000_000_000,
			KeepLastAssistants:   3,
			SoftTrimRatio:        0.3,
			HardClearRatio:       0.5,
			MinPrunableToolChars: 50_000,
			SoftTrim:             settings.SoftTrim{MaxChars: 4000, HeadChars: 1500, TailChars: 1500},
			HardClear:            settings.HardClear{Enabled: true, Placeholder: "[Old tool result content cleared]"},
		},
	}
}

func js(s string) string { return string(transcript.JSONString(s)) }

func u(text string) string { return `{"role":"user","content":` + js(text) + `,"timestamp":1}` }

func a(text string) string {
	return `{"role":"assistant","content":[{"type":"text","text":` + js(text) + `}],"stopReason":"stop"}`
}

func call(id, name string) string {
	return `{"role":"assistant","content":[{"type":"toolCall","id":"` + id + `","name":"` + name + `","arguments":{}}],"stopReason":"toolUse"}`
}

func result(id, name, text string) string {
	return resultContent(id, name, `[{"type":"text","text":`+js(text)+`}]`)
}

func resultContent(id, name, content string) string {
	return `{"role":"toolResult","toolCallId":"` + id + `","toolName":"` + name + `","content":` + content + `,"isError":false}`
}

// big is a 10,000-char tool output whose head and tail differ.
var big = strings.Repeat("a", 5000) + strings.Repeat("b", 5000)

// trimmedBig is V46's soft-trim of big with the default sizes.
var trimmedBig = strings.Repeat("a", 1500) + "\n...\n" + strings.Repeat("b", 1500) +
	"\n\n[Tool result trimmed: kept first 1500 chars and last 1500 chars of 10000 chars.]"

const cleared = "[Old tool result content cleared]"

type pruneCase struct {
	name     string
	settings stage.Settings
	in       string
	want     string // "" means unchanged
	soft     int
	hard     int
}

func runPruneCases(t *testing.T, tests []pruneCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := stagetest.Case{Target: stagetest.Anthropic, Settings: tc.settings}
			res := c.Apply(t, tc.in, Pruning())
			if tc.want == "" {
				if string(res.JSON) != tc.in {
					t.Errorf("output changed, want the input bytes:\n%.400s", res.JSON)
				}
			} else {
				stagetest.Equal(t, res.JSON, tc.want)
			}
			p := res.Report.Pruning
			want := stage.PruningReport{Ran: tc.soft+tc.hard > 0, SoftTrimmed: tc.soft, HardCleared: tc.hard}
			if p != want {
				t.Errorf("report %+v, want %+v", p, want)
			}
			again := c.Apply(t, string(res.JSON), Pruning())
			if string(again.JSON) != string(res.JSON) || again.Report.Pruning.Ran {
				t.Errorf("second run changed something (%+v)", again.Report.Pruning)
			}
		})
	}
}

func TestPruningVectors(t *testing.T) {
	if len(trimmedBig) != 3087 {
		t.Fatalf("a trimmed 10,000-char result is %d chars; V47 says 3,087", len(trimmedBig))
	}
	v47 := func(results int) []string {
		m := []string{u("start")}
		for i := range results {
			id := fmt.Sprintf("c%d", i)
			m = append(m, call(id, "read"), result(id, "read", big))
		}
		return append(m, u("1"), a("x"), u("2"), a("y"), u("3"), a("z"))
	}
	v47Out := func(results, clearedN int) string {
		m := []string{u("start")}
		for i := range results {
			id := fmt.Sprintf("c%d", i)
			text := trimmedBig
			if i < clearedN {
				text = cleared
			}
			m = append(m, call(id, "read"), result(id, "read", text))
		}
		return msgs(append(m, u("1"), a("x"), u("2"), a("y"), u("3"), a("z"))...)
	}
	deny := pruneSettings(1000)
	deny.Pruning.Tools.Deny = []string{" EXEC* "}
	allow := pruneSettings(1000)
	allow.Pruning.Tools.Allow = []string{"read"}
	imgResult := resultContent("c1", "browser", `[{"type":"text","text":"short"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]`)
	imgPruned := resultContent("c1", "browser", `[{"type":"text","text":"short\n[image removed during context pruning]"}]`)
	runPruneCases(t, []pruneCase{
		{
			name:     "V46 soft trim",
			settings: pruneSettings(1000),
			in:       msgs(u("go"), call("c1", "read"), result("c1", "read", big), a("1"), u("more"), a("2"), u("again"), a("3")),
			want:     msgs(u("go"), call("c1", "read"), result("c1", "read", trimmedBig), a("1"), u("more"), a("2"), u("again"), a("3")),
			soft:     1,
		},
		{name: "V47 hard clear, window 1000", settings: pruneSettings(1000), in: msgs(v47(20)...), want: v47Out(20, 20), hard: 20},
		{name: "V47 hard clear, window 30000", settings: pruneSettings(30000), in: msgs(v47(20)...), want: v47Out(20, 1), soft: 19, hard: 1},
		{name: "V47 five results stay soft-trimmed", settings: pruneSettings(1000), in: msgs(v47(5)...), want: v47Out(5, 0), soft: 5},
		{
			name:     "V48 results before the first user are protected",
			settings: pruneSettings(1000),
			in:       msgs(call("c0", "read"), result("c0", "read", big), u("go"), call("c1", "read"), result("c1", "read", big), a("1"), a("2"), a("3")),
			want:     msgs(call("c0", "read"), result("c0", "read", big), u("go"), call("c1", "read"), result("c1", "read", trimmedBig), a("1"), a("2"), a("3")),
			soft:     1,
		},
		{
			name:     "V48 results inside the last three assistant turns are protected",
			settings: pruneSettings(1000),
			in:       msgs(u("go"), call("c1", "read"), result("c1", "read", big), call("c2", "read"), result("c2", "read", big), a("2"), a("3")),
			want:     msgs(u("go"), call("c1", "read"), result("c1", "read", trimmedBig), call("c2", "read"), result("c2", "read", big), a("2"), a("3")),
			soft:     1,
		},
		{
			name:     "V48 fewer than three assistants: no pruning",
			settings: pruneSettings(1000),
			in:       msgs(u("go"), call("c1", "read"), result("c1", "read", big), a("2")),
		},
		{
			name:     "V48 deny exec* protects exec_cmd",
			settings: deny,
			in:       msgs(u("go"), call("c1", "exec_cmd"), result("c1", "exec_cmd", big), call("c2", "read"), result("c2", "read", big), a("1"), a("2"), a("3")),
			want:     msgs(u("go"), call("c1", "exec_cmd"), result("c1", "exec_cmd", big), call("c2", "read"), result("c2", "read", trimmedBig), a("1"), a("2"), a("3")),
			soft:     1,
		},
		{
			name:     "V48 allow read makes only read prunable",
			settings: allow,
			in:       msgs(u("go"), call("c1", "write"), result("c1", "write", big), call("c2", "READ"), result("c2", " Read ", big), a("1"), a("2"), a("3")),
			want:     msgs(u("go"), call("c1", "write"), result("c1", "write", big), call("c2", "READ"), result("c2", " Read ", trimmedBig), a("1"), a("2"), a("3")),
			soft:     1,
		},
		{
			name:     "V49 image in a tool result under the threshold",
			settings: pruneSettings(1000),
			in:       msgs(u("go"), call("c1", "browser"), imgResult, a("1"), a("2"), a("3")),
			want:     msgs(u("go"), call("c1", "browser"), imgPruned, a("1"), a("2"), a("3")),
			soft:     1,
		},
	})
}

func TestPruningGate(t *testing.T) {
	in := msgs(u("go"), call("c1", "read"), result("c1", "read", big), a("1"), a("2"), a("3"))
	want := msgs(u("go"), call("c1", "read"), result("c1", "read", trimmedBig), a("1"), a("2"), a("3"))
	with := func(f func(*stage.Settings)) stage.Settings {
		s := pruneSettings(1000)
		f(&s)
		return s
	}
	runPruneCases(t, []pruneCase{
		{name: "TTL just passed", settings: pruneSettings(1000), in: in, want: want, soft: 1},
		{name: "TTL not yet passed", settings: with(func(s *stage.Settings) { s.Request.NowMs = new(*s.Request.NowMs - 1) }), in: in},
		{name: "cache never touched", settings: with(func(s *stage.Settings) { s.Pruning.LastCacheTouchMs = 0 }), in: in},
		{name: "no TTL", settings: with(func(s *stage.Settings) { s.Pruning.TTL = 0 }), in: in},
		{name: "no clock in the job", settings: with(func(s *stage.Settings) { s.Request.NowMs = nil }), in: in},
		{name: "mode off", settings: with(func(s *stage.Settings) { s.Pruning.Mode = "off" }), in: in},
		{name: "no context window", settings: with(func(s *stage.Settings) { s.Request.ContextWindowTokens = nil }), in: in},
	})
}

// TestPruningThresholds puts the estimate on both sides of each threshold.
// The fixture [U "x", A(toolCall, {}), R(L chars), A "k"] with
// keepLastAssistants 1 estimates L+4 chars; the window is 4,000 chars.
func TestPruningThresholds(t *testing.T) {
	fixture := func(text string) string {
		return msgs(u("x"), call("c1", "read"), result("c1", "read", text), a("k"))
	}
	soft := func() stage.Settings {
		s := pruneSettings(1000)
		s.Pruning.KeepLastAssistants = 1
		s.Pruning.SoftTrim.MaxChars, s.Pruning.SoftTrim.HeadChars, s.Pruning.SoftTrim.TailChars = 100, 10, 10
		return s
	}
	hard := func(min int, enabled bool) stage.Settings {
		s := pruneSettings(1000)
		s.Pruning.KeepLastAssistants = 1
		s.Pruning.SoftTrim.MaxChars = 1 << 30
		s.Pruning.MinPrunableToolChars = min
		s.Pruning.HardClear.Enabled = enabled
		return s
	}
	at, below := strings.Repeat("y", 1196), strings.Repeat("y", 1195)
	atHard, belowHard := strings.Repeat("z", 1996), strings.Repeat("z", 1995)
	note := "\n\n[Tool result trimmed: kept first 10 chars and last 10 chars of 1196 chars.]"
	runPruneCases(t, []pruneCase{
		{name: "soft ratio reached", settings: soft(), in: fixture(at), want: fixture(at[:10] + "\n...\n" + at[:10] + note), soft: 1},
		{name: "soft ratio not reached", settings: soft(), in: fixture(below)},
		{name: "hard ratio reached", settings: hard(0, true), in: fixture(atHard), want: fixture(cleared), hard: 1},
		{name: "hard ratio not reached", settings: hard(0, true), in: fixture(belowHard)},
		{name: "prunable chars at the minimum", settings: hard(1996, true), in: fixture(atHard), want: fixture(cleared), hard: 1},
		{name: "prunable chars below the minimum", settings: hard(1997, true), in: fixture(atHard)},
		{name: "hard clear disabled", settings: hard(0, false), in: fixture(atHard)},
	})
}

// TestPruningSoftTrimShapes covers how a soft trim cuts its parts.
func TestPruningSoftTrimShapes(t *testing.T) {
	s := trimSettings{maxChars: 5, headChars: 7, tailChars: 3}
	emoji := strings.Repeat("😀", 6) // 12 code units
	tests := []struct {
		name    string
		content string
		s       trimSettings
		want    string // "" means unchanged
	}{
		{"across block boundaries", `[{"type":"text","text":"AAAAA"},{"type":"text","text":"BBBBB"}]`, s,
			"AAAAA\nB\n...\nBBB\n\n[Tool result trimmed: kept first 7 chars and last 3 chars of 11 chars.]"},
		{"head ends on a join", `[{"type":"text","text":"AAAAA"},{"type":"text","text":"BBBBB"}]`, trimSettings{maxChars: 5, headChars: 6, tailChars: 4},
			"AAAAA\n\n...\nBBBB\n\n[Tool result trimmed: kept first 6 chars and last 4 chars of 11 chars.]"},
		{"tail starts on a join", `[{"type":"text","text":"AAAAA"},{"type":"text","text":"BBBBB"}]`, trimSettings{maxChars: 5, headChars: 4, tailChars: 6},
			"AAAA\n...\n\nBBBBB\n\n[Tool result trimmed: kept first 4 chars and last 6 chars of 11 chars.]"},
		{"a cut splits a surrogate pair", `[{"type":"text","text":` + js(emoji) + `}]`, trimSettings{maxChars: 4, headChars: 3, tailChars: 3},
			"😀\uFFFD\n...\n\uFFFD😀\n\n[Tool result trimmed: kept first 3 chars and last 3 chars of 12 chars.]"},
		{"string content is one part", js("0123456789"), trimSettings{maxChars: 4, headChars: 2, tailChars: 2},
			"01\n...\n89\n\n[Tool result trimmed: kept first 2 chars and last 2 chars of 10 chars.]"},
		{"exactly maxChars", `[{"type":"text","text":"0123456789"}]`, trimSettings{maxChars: 10, headChars: 2, tailChars: 2}, ""},
		{"head and tail cover it", `[{"type":"text","text":"0123456789"}]`, trimSettings{maxChars: 4, headChars: 5, tailChars: 5}, ""},
		{"zero head", `[{"type":"text","text":"0123456789"}]`, trimSettings{maxChars: 4, headChars: 0, tailChars: 2},
			"\n...\n89\n\n[Tool result trimmed: kept first 0 chars and last 2 chars of 10 chars.]"},
		{"image and other blocks", `[{"type":"image","data":"x"},{"type":"unknown","text":"zz"},{"type":"text","text":7}]`, trimSettings{maxChars: 100, headChars: 10, tailChars: 10},
			prunedImageMarker},
		{"no text at all", `[]`, s, ""},
		{"already trimmed", `[{"type":"text","text":"AAAAA\nB\n...\nBBB\n\n[Tool result trimmed: kept first 7 chars and last 3 chars of 11 chars.]"}]`, s, ""},
		{"content is an object", `{"text":"0123456789"}`, trimSettings{maxChars: 1}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := transcript.FromMessages([]byte(`[{"role":"toolResult","content":`+tc.content+`}]`), transcript.Target(stagetest.Anthropic))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := softTrim(tr.Messages[0], tc.s)
			if tc.want == "" {
				if ok {
					t.Errorf("trimmed to %q, want unchanged", got)
				}
				return
			}
			if !ok || got != tc.want {
				t.Errorf("got %q (%v), want %q", got, ok, tc.want)
			}
		})
	}
}

// TestPruningDroppedView checks that the estimate skips the thinking the
// target will not receive (dropThinkingBlocks, §3.8.1): with the thinking
// counted the ratio would pass the soft-trim threshold, without it not.
func TestPruningDroppedView(t *testing.T) {
	thinking := strings.Repeat("t", 3000)
	in := msgs(u("go"),
		`{"role":"assistant","content":[{"type":"thinking","thinking":"`+thinking+`"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}`,
		result("c1", "read", strings.Repeat("r", 500)), a("1"), a("2"), a("3"))
	s := pruneSettings(2000) // 8,000 chars: 3,000 of thinking reach 0.3 with the rest; without, no
	s.Pruning.SoftTrim.MaxChars, s.Pruning.SoftTrim.HeadChars, s.Pruning.SoftTrim.TailChars = 10, 1, 1
	claude := stagetest.Case{Target: stagetest.Anthropic, Settings: s}.Apply(t, in, Pruning())
	copilot := stagetest.Case{Target: copilotClaude, Settings: s}.Apply(t, in, Pruning())
	if !claude.Report.Pruning.Ran {
		t.Error("anthropic: thinking counts, pruning should run")
	}
	if copilot.Report.Pruning.Ran {
		t.Error("copilot claude: thinking is dropped before sending, pruning should not run")
	}
}

func FuzzPruning(f *testing.F) {
	f.Add([]byte(msgs(u("go"), call("c1", "read"), result("c1", "read", big), a("1"), u("more"), a("2"), u("again"), a("3"))))
	f.Add([]byte(msgs(u("go"), call("c1", "browser"), resultContent("c1", "browser", `[{"type":"text","text":"short"},{"type":"image","data":"x"}]`), a("1"), a("2"), a("3"))))
	f.Add([]byte(msgs(call("c0", "exec"), result("c0", "exec", "中文😀"), u("go"), resultContent("c1", "", `"plain string"`), `{"role":"custom"}`, `null`, a("1"), a("2"), a("3"))))
	f.Add([]byte(`[{"role":"user","content":"x"},{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"AAAAA"},{"type":"text","text":"BBBBB"}]},{"role":"assistant","content":[]}]`))
	s := pruneSettings(10)
	s.Pruning.KeepLastAssistants = 1
	s.Pruning.SoftTrim.MaxChars, s.Pruning.SoftTrim.HeadChars, s.Pruning.SoftTrim.TailChars = 5, 7, 3
	s.Pruning.MinPrunableToolChars = 10
	c := stagetest.Case{Target: stagetest.Anthropic, Settings: s}
	f.Fuzz(func(t *testing.T, in []byte) {
		c.CheckProperties(t, in, Pruning())
	})
}

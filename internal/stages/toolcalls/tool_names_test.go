package toolcalls

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

var (
	strictNames = contract.Of(contract.AnthropicMessages).ToolNames
	geminiNames = contract.Of(contract.Gemini).ToolNames
)

// TestWireToolNamesReadable: a refused name keeps its readable form; a
// collision or an over-long name gets a hash suffix; each wire name is
// valid for the target.
func TestWireToolNamesReadable(t *testing.T) {
	long := strings.Repeat("very_long_tool_name_", 4) // 80 characters
	cases := []struct {
		name    string
		limits  contract.IDLimits
		refused []string
		taken   []string
		want    map[string]string // "" value: a hash-suffixed name with this prefix in wantPrefix
		prefix  map[string]string
	}{
		{"dots", strictNames, []string{"github.create_issue", "browser.open"}, nil,
			map[string]string{"github.create_issue": "github_create_issue", "browser.open": "browser_open"}, nil},
		{"mcp and slash", strictNames, []string{"fs:read", "a/b"}, nil,
			map[string]string{"fs:read": "fs_read", "a/b": "a_b"}, nil},
		{"gemini keeps dots", geminiNames, []string{"9lives", "a/b"}, nil,
			map[string]string{"9lives": "t_9lives", "a/b": "a_b"}, nil},
		{"collision with a valid name", strictNames, []string{"a.b"}, []string{"a_b", "a.b"},
			nil, map[string]string{"a.b": "a_b_"}},
		{"two refused, one form", strictNames, []string{"a:b", "a.b"}, nil,
			map[string]string{"a.b": "a_b"}, map[string]string{"a:b": "a_b_"}},
		{"over 64", strictNames, []string{long}, nil, nil, map[string]string{long: long[:55] + "_"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := WireToolNames(tc.refused, append(tc.taken, tc.refused...), tc.limits)
			for orig, w := range tc.want {
				if got[orig] != w {
					t.Errorf("%q → %q, want %q", orig, got[orig], w)
				}
			}
			for orig, p := range tc.prefix {
				if w := got[orig]; !strings.HasPrefix(w, p) || len(w) != len(p)+hashSuffixLen {
					t.Errorf("%q → %q, want %q and %d hex digits", orig, w, p, hashSuffixLen)
				}
			}
			for orig, w := range got {
				if !tc.limits.Valid(w) || len(w) > 64 {
					t.Errorf("%q → %q, which the target refuses", orig, w)
				}
			}
		})
	}
}

// TestWireToolNamesStable: the map depends on the set of names only, not
// on their order or repeats.
func TestWireToolNamesStable(t *testing.T) {
	names := []string{"a.b", "a:b", "a/b", "x.y.z", strings.Repeat("n.", 40), "a_b"}
	want := WireToolNames(names, names, strictNames)
	rng := rand.New(rand.NewPCG(21, 21))
	for range 50 {
		shuffled := slices.Clone(names)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		shuffled = append(shuffled, shuffled[0])
		if got := WireToolNames(shuffled, shuffled, strictNames); !mapsEqual(got, want) {
			t.Fatalf("order changed the map: %v, want %v", got, want)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// FuzzWireToolNames: whatever the names, the map is one-to-one, every wire
// name is valid and none takes a valid name of the job.
func FuzzWireToolNames(f *testing.F) {
	f.Add("a.b\na:b\na_b\na/b\na_b_1", false)
	f.Add(strings.Repeat("x.", 40)+"\n"+strings.Repeat("x_", 40), true)
	f.Add("é\nü\n_\n-", true)
	f.Fuzz(func(t *testing.T, list string, gemini bool) {
		limits := strictNames
		if gemini {
			limits = geminiNames
		}
		names := strings.Split(list, "\n")
		var refused []string
		for _, n := range names {
			if n != "" && !limits.Valid(n) {
				refused = append(refused, n)
			}
		}
		got := WireToolNames(refused, names, limits)
		seen := map[string]string{}
		for orig, w := range got {
			if !limits.Valid(w) {
				t.Fatalf("%q → %q is refused", orig, w)
			}
			if other, ok := seen[w]; ok {
				t.Fatalf("%q and %q both → %q", orig, other, w)
			}
			seen[w] = orig
			if slices.Contains(names, w) {
				t.Fatalf("%q → %q, a name of the job", orig, w)
			}
		}
		if len(got) != len(uniq(refused)) {
			t.Fatalf("%d names mapped, %d refused", len(got), len(uniq(refused)))
		}
	})
}

func uniq(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// TestToolNamesStage: the stage renames alike in the calls, the results'
// toolName and the job's tools, keeps the map for the payload, counts it,
// and leaves a Gemini target's dotted names alone.
func TestToolNamesStage(t *testing.T) {
	const history = `[{"role":"user","content":"open it"},` +
		`{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01XFDUDYJgAACzvnptvVoYEL","name":"browser.open","arguments":{"url":"https://go.dev"}}],"stopReason":"toolUse"},` +
		`{"role":"toolResult","toolCallId":"toolu_01XFDUDYJgAACzvnptvVoYEL","toolName":"browser.open","content":[{"type":"text","text":"ok"}]}]`
	tr, report := runToolNames(t, anthropic, history)
	out := string(tr.MessagesJSON())
	if strings.Contains(out, "browser.open") || strings.Count(out, `"browser_open"`) != 2 {
		t.Errorf("history not renamed alike: %s", out)
	}
	if tr.Options.Tools[0].Name != "browser_open" || tr.Options.Tools[1].Name != "read" {
		t.Errorf("tools = %+v", tr.Options.Tools)
	}
	if names, _ := json.Marshal(tr.ToolNames); string(names) != `{"browser_open":"browser.open"}` {
		t.Errorf("tool_names = %s", names)
	}
	if got := reportCount(t, report, "renamed"); got != 1 {
		t.Errorf("renamed = %d, want 1", got)
	}
	// issue 29: the output sanitized again with the same tools is the same
	// payload: browser_open is read as browser.open's wire name, so the
	// tool keeps it (no hash suffix) and tool_names maps it back
	again, _ := runToolNames(t, anthropic, out)
	if got := string(again.MessagesJSON()); got != out {
		t.Errorf("second pass changed the history: %s", got)
	}
	if again.Options.Tools[0].Name != "browser_open" {
		t.Errorf("second pass: tools = %+v", again.Options.Tools)
	}
	if names, _ := json.Marshal(again.ToolNames); string(names) != `{"browser_open":"browser.open"}` {
		t.Errorf("second pass: tool_names = %s", names)
	}
	tr, _ = runToolNames(t, google, history)
	if !strings.Contains(string(tr.MessagesJSON()), `"browser.open"`) || tr.ToolNames != nil || tr.Options.Tools[0].Name != "browser.open" {
		t.Errorf("a Gemini target's valid name was renamed: %s %v", tr.MessagesJSON(), tr.ToolNames)
	}
}

// Under the runner, which knows the job's facts, a history whose every
// name the decode read as plain is left without a walk only when the job
// declares no name: the wire name of a declared tool is still mapped back.
func TestToolNamesUnderTheRunner(t *testing.T) {
	const history = `[{"role":"user","content":"open it"},` +
		`{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01XFDUDYJgAACzvnptvVoYEL","name":"browser_open","arguments":{}}],"stopReason":"toolUse"},` +
		`{"role":"toolResult","toolCallId":"toolu_01XFDUDYJgAACzvnptvVoYEL","toolName":"browser_open","content":[{"type":"text","text":"ok"}]}]`
	for _, tools := range [][]transcript.Tool{nil, {{Name: "browser.open"}}} {
		tr, err := transcript.FromMessages([]byte(history), anthropic)
		if err != nil {
			t.Fatal(err)
		}
		tr.Options.Tools = tools
		env := &stage.Env{Policy: policy.Resolve(anthropic), Report: stage.NewReport()}
		// the details strip Needs a fact: the runner reads the job's facts
		if err := stage.Run(context.Background(), []stage.Stage{StripDetails(), ToolNames()}, tr, env); err != nil {
			t.Fatal(err)
		}
		if env.MayHold(transcript.FactToolNameOff) {
			t.Fatal("the runner takes plain names for names to rename")
		}
		names, _ := json.Marshal(tr.ToolNames)
		if want := map[bool]string{true: "null", false: `{"browser_open":"browser.open"}`}[tools == nil]; string(names) != want {
			t.Errorf("tools %v: tool_names = %s, want %s", tools, names, want)
		}
		if got := string(tr.MessagesJSON()); got != history {
			t.Errorf("tools %v: the history changed: %s", tools, got)
		}
	}
}

// runToolNames runs the stage over history for tg with the tools
// browser.open and read.
func runToolNames(t *testing.T, tg transcript.Target, history string) (*transcript.Transcript, *stage.Report) {
	t.Helper()
	tr, err := transcript.FromMessages([]byte(history), tg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Options.Tools = []transcript.Tool{{Name: "browser.open"}, {Name: "read"}}
	env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport()}
	if err := ToolNames().Apply(context.Background(), tr, env); err != nil {
		t.Fatal(err)
	}
	return tr, env.Report
}

// reportCount reads one count of the tool_names stage from a report.
func reportCount(t *testing.T, r *stage.Report, what string) int {
	t.Helper()
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Stages map[string]map[string]int `json:"stages"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v.Stages[toolNamesStage][what]
}

// TestPlainToolName: the fast path takes only names every target accepts.
func TestPlainToolName(t *testing.T) {
	for name, want := range map[string]bool{"read": true, "_x-1": true, "browser.open": false, "9lives": false,
		"-x": false, "": false, "a/b": false, "é": false, strings.Repeat("a", 64): true, strings.Repeat("a", 65): false} {
		if got := jsontape.PlainToolName(transcript.JSONString(name)); got != want {
			t.Errorf("PlainToolName(%q) = %v, want %v", name, got, want)
		}
		if want {
			for _, f := range contract.Families() {
				if !contract.Of(f).ToolNames.Valid(name) {
					t.Errorf("%q is plain but %s refuses it", name, f)
				}
			}
		}
	}
}

package batch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestCustomID(t *testing.T) {
	cases := []struct{ rel, want string }{
		{"session.jsonl", "session"},
		{"s-1_a.jsonl.zst", "s-1_a"},
		{"agents/main/s1.jsonl", ""}, // changed: hashed
		{strings.Repeat("x", 80) + ".jsonl", ""},
		{"é.jsonl", ""},
		{".jsonl", ""},
	}
	seen := map[string]string{}
	for _, tc := range cases {
		id := CustomID(tc.rel)
		if !idPattern.MatchString(id) {
			t.Errorf("CustomID(%q) = %q does not match the pattern", tc.rel, id)
		}
		if tc.want != "" && id != tc.want {
			t.Errorf("CustomID(%q) = %q, want %q", tc.rel, id, tc.want)
		}
		if tc.want == "" && !regexp.MustCompile(`-[0-9a-f]{8}$`).MatchString(id) {
			t.Errorf("CustomID(%q) = %q, want a hashed id", tc.rel, id)
		}
		if CustomID(tc.rel) != id {
			t.Errorf("CustomID(%q) is not deterministic", tc.rel)
		}
		if other, dup := seen[id]; dup {
			t.Errorf("%q and %q share %q", tc.rel, other, id)
		}
		seen[id] = tc.rel
	}
	if CustomID("a/b.jsonl") == CustomID("a_b.jsonl") {
		t.Error("a/b and a_b share an id")
	}
}

// body is a small rendered request of the kind's format.
// Every other one is indented, as a body written by hand may be: its line
// must still be one line.
func body(k Kind, i int) *transcript.Request {
	js := fmt.Sprintf(`{"messages":[{"role":"user","content":"hello %d"}]}`, i)
	if i%2 == 1 {
		js = fmt.Sprintf("{\n \"messages\": [\n  {\"role\": \"user\", \"content\": \"hello %d\"}\n ]\n}", i)
	}
	return &transcript.Request{Format: string(k.Format()), Body: []byte(js)}
}

// readLines validates every line of every file against the documented
// shape of the kind and returns the custom_ids per file.
func readLines(t *testing.T, k Kind, files []string, lim Limits) [][]string {
	t.Helper()
	var out [][]string
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		size := int64(0)
		seen := map[string]bool{}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := sc.Bytes()
			size += int64(len(line)) + 1
			var v map[string]json.RawMessage
			if err := json.Unmarshal(line, &v); err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			var id string
			_ = json.Unmarshal(v["custom_id"], &id)
			if !idPattern.MatchString(id) || seen[id] {
				t.Fatalf("%s:%d: custom_id %q invalid or repeated", path, n, id)
			}
			seen[id] = true
			ids = append(ids, id)
			var req struct {
				Model    string            `json:"model"`
				Messages []json.RawMessage `json:"messages"`
			}
			var tokens map[string]json.RawMessage
			switch k {
			case Anthropic:
				if len(v) != 2 || v["params"] == nil {
					t.Fatalf("%s:%d: want exactly custom_id and params: %s", path, n, line)
				}
				_ = json.Unmarshal(v["params"], &req)
				_ = json.Unmarshal(v["params"], &tokens)
				if string(tokens["max_tokens"]) != "256" {
					t.Fatalf("%s:%d: max_tokens %s", path, n, tokens["max_tokens"])
				}
			default:
				url := `"/v1/chat/completions"`
				key := "max_completion_tokens"
				if k == OpenAIResponses {
					url, key = `"/v1/responses"`, "max_output_tokens"
				}
				if len(v) != 4 || string(v["method"]) != `"POST"` || string(v["url"]) != url || v["body"] == nil {
					t.Fatalf("%s:%d: want custom_id, method POST, url %s and body: %s", path, n, url, line)
				}
				_ = json.Unmarshal(v["body"], &req)
				_ = json.Unmarshal(v["body"], &tokens)
				if string(tokens[key]) != "256" {
					t.Fatalf("%s:%d: %s %s", path, n, key, tokens[key])
				}
			}
			if req.Model != "m-1" || len(req.Messages) != 1 {
				t.Fatalf("%s:%d: model %q, %d messages", path, n, req.Model, len(req.Messages))
			}
		}
		f.Close()
		if len(ids) > lim.MaxRequests || size > lim.MaxBytes {
			t.Fatalf("%s: %d lines, %d bytes: over %+v", path, len(ids), size, lim)
		}
		out = append(out, ids)
	}
	return out
}

// TestWriterSplitsAtLimits: every session lands exactly once, files stay
// within the request and byte limits, and every line has the documented
// shape.
func TestWriterSplitsAtLimits(t *testing.T) {
	for _, k := range Kinds {
		for _, lim := range []Limits{{MaxRequests: 7, MaxBytes: 1 << 20}, {MaxRequests: 1000, MaxBytes: 1000}} {
			t.Run(fmt.Sprintf("%s %+v", k, lim), func(t *testing.T) {
				dir := t.TempDir()
				w, err := Open(Config{Dir: dir, Kind: k, Model: "m-1", MaxTokens: 256, Limits: lim}, false)
				if err != nil {
					t.Fatal(err)
				}
				const sessions = 40
				for i := 0; i < sessions; i++ {
					if err := w.Add(fmt.Sprintf("dir/s%d.jsonl", i), body(k, i)); err != nil {
						t.Fatal(err)
					}
				}
				files, err := w.Close()
				if err != nil {
					t.Fatal(err)
				}
				perFile := readLines(t, k, files, lim)
				total := 0
				for _, ids := range perFile {
					total += len(ids)
				}
				if total != sessions || len(files) < 2 {
					t.Fatalf("%d lines in %d files, want %d lines split over several files", total, len(files), sessions)
				}
			})
		}
	}
}

func TestWriterRefusals(t *testing.T) {
	dir := t.TempDir()
	doc := Anthropic.DocumentedLimits()
	if _, err := Open(Config{Dir: dir, Kind: Anthropic, Model: "m", MaxTokens: 1, Limits: Limits{MaxRequests: doc.MaxRequests + 1}}, false); err == nil {
		t.Error("a request limit above the documented one was accepted")
	}
	if _, err := Open(Config{Dir: dir, Kind: OpenAIChat, Model: "m", MaxTokens: 1, Limits: Limits{MaxBytes: 200_000_001}}, false); err == nil {
		t.Error("a byte limit above the documented one was accepted")
	}
	if _, err := Open(Config{Dir: dir, Kind: OpenAIChat, MaxTokens: 1}, false); err == nil {
		t.Error("no model was accepted")
	}
	w, err := Open(Config{Dir: dir, Kind: Anthropic, Model: "m-1", MaxTokens: 256, Limits: Limits{MaxRequests: 10, MaxBytes: 200}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add("a.jsonl", body(OpenAIChat, 1)); err == nil || !strings.Contains(err.Error(), "anthropic-messages") {
		t.Errorf("a chat body in an Anthropic batch: %v", err)
	}
	if err := w.Add("a.jsonl", body(Anthropic, 1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Add("a.jsonl", body(Anthropic, 2)); err == nil {
		t.Error("the same custom_id twice was accepted")
	}
	big := &transcript.Request{Format: string(wire.AnthropicMessages), Body: []byte(`{"messages":["` + strings.Repeat("x", 300) + `"]}`)}
	if err := w.Add("big.jsonl", big); err == nil {
		t.Error("a line over the byte limit was accepted")
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Config{Dir: dir, Kind: Anthropic, Model: "m", MaxTokens: 1}, false); err == nil {
		t.Error("a directory with batch files was reused without resume")
	}
}

// TestWriterResume: an interrupted run's partial file is cut after its last
// complete line and kept; new files are numbered after it.
func TestWriterResume(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(Config{Dir: dir, Kind: OpenAIResponses, Model: "m-1", MaxTokens: 256}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := w.Add(fmt.Sprintf("s%d.jsonl", i), body(OpenAIResponses, i)); err != nil {
			t.Fatal(err)
		}
	}
	// Simulate a crash: the file stays partial, with half a line at its end.
	partial := filepath.Join(dir, "openai-responses-batch-0001.jsonl.partial")
	f, err := os.OpenFile(partial, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"custom_id":"s3","met`)
	f.Close()
	w.f.Close()

	w2, err := Open(Config{Dir: dir, Kind: OpenAIResponses, Model: "m-1", MaxTokens: 256}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Add("s3.jsonl", body(OpenAIResponses, 3)); err != nil {
		t.Fatal(err)
	}
	files, err := w2.Close()
	if err != nil {
		t.Fatal(err)
	}
	all := append([]string{filepath.Join(dir, "openai-responses-batch-0001.jsonl")}, files...)
	ids := readLines(t, OpenAIResponses, all, OpenAIResponses.DocumentedLimits())
	if len(ids) != 2 || len(ids[0]) != 3 || len(ids[1]) != 1 || !strings.HasSuffix(files[0], "-0002.jsonl") {
		t.Fatalf("after resume: files %v, ids %v", all, ids)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSanitizeRequestExamples: the payload of every request example (each
// sanitizes: TestSanitizeEveryExample) names its input_format and renders
// the request, and its body alone sanitizes with --from and --target.
func TestSanitizeRequestExamples(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "examples", "from-*-damaged.json"))
	if err != nil || len(paths) != 6 {
		t.Fatalf("want six request examples, got %v (%v)", paths, err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var job struct {
				Target  struct{ Provider, API, Model string }
				Format  string          `json:"request_format"`
				Request json.RawMessage `json:"request"`
				Options struct {
					Source string `json:"source"`
				} `json:"options"`
			}
			if err := json.Unmarshal(raw, &job); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI(t, "", "sanitize", path)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, `"input_format":"`+job.Format+`"`) || !strings.Contains(out, `"request_format":"`) {
				t.Fatalf("payload without input_format or request: %s", firstLine(out))
			}
			body := filepath.Join(t.TempDir(), "body.json")
			if err := os.WriteFile(body, job.Request, 0o644); err != nil {
				t.Fatal(err)
			}
			target := job.Target.Provider + "/" + job.Target.API + "/" + job.Target.Model
			code, fromOut, errOut := runCLI(t, "", "sanitize", "--from", job.Format, "--target", target, body)
			if code != exitOK {
				t.Fatalf("--from: exit %d: %s", code, errOut)
			}
			if !strings.Contains(fromOut, `"input_format":"`+job.Format+`"`) || !strings.Contains(fromOut, `"request_format":"`) {
				t.Fatalf("--from payload: %s", firstLine(fromOut))
			}
		})
	}
	if code, _, errOut := runCLI(t, "", "sanitize", "--from", "cohere", paths[0]); code != exitUsage || !strings.Contains(errOut, "--from") {
		t.Fatalf("an unknown --from: exit %d, %s", code, errOut)
	}
}

// TestSanitizeFromRefusesInvalidJSON: a body given with --from is not a job
// the job decode validated, so sanitize validates it (wire.Parse takes
// valid JSON): a valid history followed by bytes that are not JSON, or a
// text with an invalid byte in an unterminated body, is invalid_job, not
// the history the parse could make of its start.
func TestSanitizeFromRefusesInvalidJSON(t *testing.T) {
	for _, body := range []string{
		`{"messages":[{"role":"user","content":"hi"}]} x`,
		"{\"messages\":[{\"role\":\"user\",\"content\":\"hi\xff\"}],",
		`[{"role":"user","content":"hi"}]`,
	} {
		code, out, errOut := runCLI(t, body, "sanitize", "--from", "anthropic", "-")
		if code == 0 || !strings.Contains(errOut, "invalid_job: request: offset") {
			t.Errorf("%q: exit %d, %s%s", body, code, firstLine(out), errOut)
		}
	}
}

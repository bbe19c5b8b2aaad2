package config

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunCommand(t *testing.T) {
	good := "images:\n  max_dimension_px: 800\nkafka:\n  sasl: {mechanism: plain, username: svc, password: s3cret}\n"
	bad := "images:\n  max_dimension_px: 0\n"
	unknown := "imgs:\n  max_bytes: 1\n"
	tests := []struct {
		name       string
		args       func(t *testing.T) []string
		environ    []string
		wantCode   int
		wantStdout []string
		wantStderr string
	}{
		{"print defaults", args("print"), nil, 0, []string{"max_dimension_px: 1200", "group_id: hygiene-worker", "shutdown_timeout: 25s"}, ""},
		{"print file and env", withFile(good, "print", "--config", "FILE"), []string{"HYGIENE_LOG_LEVEL=debug"}, 0,
			[]string{"max_dimension_px: 800", "level: debug", "password: " + Redacted}, ""},
		{"print file with = form", withFile(good, "print", "--config=FILE"), nil, 0, []string{"max_dimension_px: 800"}, ""},
		{"print invalid file", withFile(bad, "print", "--config", "FILE"), nil, 2, nil, "images.max_dimension_px (line 2): must be at least 1, got 0"},
		{"print unknown env", args("print"), []string{"HYGIENE_NOPE=1"}, 2, nil, "HYGIENE_NOPE names no setting"},
		{"print stray argument", args("print", "worker.yaml"), nil, 2, nil, `unexpected argument "worker.yaml"`},
		{"print unknown flag", args("print", "--cfg", "x"), nil, 2, nil, "flag provided but not defined: -cfg"},
		{"validate good", withFile(good, "validate", "FILE"), nil, 0, []string{": valid"}, ""},
		{"validate shipped file", args("validate", shippedFile), nil, 0, []string{"worker.yaml: valid"}, ""},
		{"validate bad value", withFile(bad, "validate", "FILE"), nil, 2, nil, "images.max_dimension_px (line 2): must be at least 1, got 0"},
		{"validate unknown key", withFile(unknown, "validate", "FILE"), nil, 2, nil, `unknown key "imgs" at line 1`},
		{"validate syntax error", withFile("a: [\n", "validate", "FILE"), nil, 2, nil, "yaml:"},
		{"validate missing file", args("validate", "/nonexistent.yaml"), nil, 2, nil, "/nonexistent.yaml"},
		{"validate applies env", withFile(good, "validate", "FILE"), []string{"HYGIENE_LOG_FORMAT=xml"}, 2, nil, "log.format"},
		{"validate no file", args("validate"), nil, 2, nil, "want exactly one FILE"},
		{"validate two files", args("validate", "a", "b"), nil, 2, nil, "want exactly one FILE"},
		{"no subcommand", args(), nil, 2, nil, "usage:"},
		{"unknown subcommand", args("check"), nil, 2, nil, `unknown subcommand "check"`},
		{"help", args("help"), nil, 0, []string{"worker config validate FILE"}, ""},
		{"print help", args("print", "-h"), nil, 0, []string{"usage:"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := RunCommand(tt.args(t), &stdout, &stderr, tt.environ)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, stderr.String())
			}
			for _, want := range tt.wantStdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			if tt.wantStderr == "" {
				if stderr.Len() != 0 {
					t.Errorf("unexpected stderr: %s", stderr.String())
				}
				return
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.wantStderr)
			}
			if tt.wantCode == 2 && tt.name != "no subcommand" && strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr is not one line: %q", stderr.String())
			}
		})
	}
}

// args returns fixed arguments.
func args(a ...string) func(*testing.T) []string {
	return func(*testing.T) []string { return a }
}

// withFile writes text to a temporary config file and puts its path in
// place of the word FILE in the arguments.
func withFile(text string, a ...string) func(*testing.T) []string {
	return func(t *testing.T) []string {
		path := writeFile(t, text)
		out := make([]string, len(a))
		for i, s := range a {
			out[i] = strings.ReplaceAll(s, "FILE", path)
		}
		return out
	}
}

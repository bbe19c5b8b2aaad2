package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/images"
)

// libvipsChildEnv makes the test binary run TestSanitizeStartsLibvipsOnlyForImages's
// checks in a fresh process, where no other test has started libvips.
const libvipsChildEnv = "WORKER_TEST_LIBVIPS_CHILD"

// `worker sanitize` of a history without images never starts libvips
// (its start-up is ~12 MB of a small worker's peak RSS); the first image
// starts it, and is still rewritten.
func TestSanitizeStartsLibvipsOnlyForImages(t *testing.T) {
	if os.Getenv(libvipsChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestSanitizeStartsLibvipsOnlyForImages$", "-test.v")
		cmd.Env = append(os.Environ(), libvipsChildEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the child: %v\n%s", err, out)
		}
		return
	}
	examples := filepath.Join("..", "..", "examples")
	if code, _, errOut := runCLI(t, "", "sanitize", filepath.Join(examples, "anthropic-clean.json")); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if images.Started() {
		t.Fatal("a job without images started libvips")
	}
	code, out, errOut := runCLI(t, "", "sanitize", filepath.Join(examples, "anthropic-damaged.json"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !images.Started() {
		t.Fatal("a job with an image did not start libvips")
	}
	if !strings.Contains(out, `"images":{"resized":1`) {
		t.Fatalf("the image was not rewritten: %.300s", out[strings.Index(out, `"report"`):])
	}
}

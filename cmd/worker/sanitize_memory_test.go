package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/memlimit"
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

// `worker sanitize` sets the Go memory limit to what the runtime holds
// plus memory.sanitize_input_ratio times its input (2.5 by default), leaves
// it alone with a ratio of 0, and leaves a GOMEMLIMIT of the environment
// in place.
func TestSanitizeMemoryLimitFollowsTheInput(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	env, hadEnv := os.LookupEnv("GOMEMLIMIT")
	os.Unsetenv("GOMEMLIMIT")
	t.Cleanup(func() {
		if hadEnv {
			os.Setenv("GOMEMLIMIT", env)
		}
	})
	const input = 40 << 20
	cfg := config.Default()
	debug.SetMemoryLimit(math.MaxInt64)
	before := memlimit.HeldBytes()
	limit := setJobMemoryLimit(cfg, input)
	if want := before + 5*input/2; limit < want || limit > want+(16<<20) || debug.SetMemoryLimit(-1) != limit {
		t.Fatalf("limit %d (runtime's %d), want about %d held + 2.5 x %d", limit, debug.SetMemoryLimit(-1), before, input)
	}
	for name, set := range map[string]func(){
		"ratio 0":    func() { cfg.Memory.SanitizeInputRatio = 0 },
		"GOMEMLIMIT": func() { cfg = config.Default(); t.Setenv("GOMEMLIMIT", "1GiB") },
	} {
		set()
		debug.SetMemoryLimit(math.MaxInt64)
		if got := setJobMemoryLimit(cfg, input); got != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
			t.Fatalf("%s: limit %d set, runtime's %d", name, got, debug.SetMemoryLimit(-1))
		}
	}
}

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
// plus memory.sanitize_input_ratio times its input (2.5 by default) and
// turns GOGC's pacing off under it; it leaves both alone with a ratio of 0
// or a GOMEMLIMIT of the environment, keeps a GOGC of the environment, and
// its restore puts back the limit and the percent it found.
func TestSanitizeMemoryFollowsTheInput(t *testing.T) {
	prevLimit, prevPercent := debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetMemoryLimit(prevLimit); debug.SetGCPercent(prevPercent) })
	for _, name := range []string{"GOMEMLIMIT", "GOGC"} {
		if v, had := os.LookupEnv(name); had {
			os.Unsetenv(name)
			t.Cleanup(func() { os.Setenv(name, v) })
		}
	}
	const input = 40 << 20
	cfg := config.Default()
	debug.SetMemoryLimit(math.MaxInt64)
	before := memlimit.HeldBytes()
	limit, restore := setJobMemory(cfg, input)
	if want := before + 5*input/2; limit < want || limit > want+(16<<20) || debug.SetMemoryLimit(-1) != limit {
		t.Fatalf("limit %d (runtime's %d), want about %d held + 2.5 x %d", limit, debug.SetMemoryLimit(-1), before, input)
	}
	if p := memlimit.GCPercent(); p != -1 {
		t.Fatalf("GC percent %d under the job's limit, want -1 (off)", p)
	}
	restore()
	if l, p := debug.SetMemoryLimit(-1), memlimit.GCPercent(); l != math.MaxInt64 || p != 100 {
		t.Fatalf("after restore: limit %d, GC percent %d; want %d, 100", l, p, int64(math.MaxInt64))
	}

	t.Run("GOGC of the environment", func(t *testing.T) {
		t.Setenv("GOGC", "100")
		limit, restore := setJobMemory(cfg, input)
		defer restore()
		if limit == 0 || memlimit.GCPercent() != 100 {
			t.Fatalf("limit %d, GC percent %d; want a limit and GOGC's 100", limit, memlimit.GCPercent())
		}
	})
	for name, set := range map[string]func(t *testing.T) *config.Config{
		"ratio 0": func(*testing.T) *config.Config {
			c := config.Default()
			c.Memory.SanitizeInputRatio = 0
			return &c
		},
		"GOMEMLIMIT": func(t *testing.T) *config.Config {
			t.Setenv("GOMEMLIMIT", "1GiB")
			c := config.Default()
			return &c
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := set(t)
			got, restore := setJobMemory(*c, input)
			defer restore()
			if got != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 || memlimit.GCPercent() != 100 {
				t.Fatalf("limit %d set, runtime's %d, GC percent %d", got, debug.SetMemoryLimit(-1), memlimit.GCPercent())
			}
		})
	}
}

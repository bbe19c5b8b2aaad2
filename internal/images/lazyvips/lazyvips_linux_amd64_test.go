package lazyvips_test

import (
	"bytes"
	"debug/elf"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"

	"github.com/hygiene-dev/hygiene/internal/images/lazyvips"
)

// childEnv names the run of this test binary whose first libvips call is a
// trampoline's, with nothing loaded before it.
const childEnv = "LAZYVIPS_TEST_CHILD"

// libvipsPath is how libvips shows in /proc/self/maps once mapped.
const libvipsPath = "/libvips.so.42"

// mappedBeforeTests is whether libvips was mapped when TestMain started,
// after every package's init and before any test could call Load.
var mappedBeforeTests bool

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Stdout.Write(thumbnail()) // vips_init is the first call: it loads libvips
		os.Exit(0)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		panic(err)
	}
	mappedBeforeTests = bytes.Contains(maps, []byte(libvipsPath))
	os.Exit(m.Run())
}

// TestNotNeededNorLoadedUntilUsed: this binary links govips, yet the
// loader does not map libvips.so.42 for it; govips' package init (which
// reads the version) does not load it (TestMain looks, before any test can
// call Load, so the order of the tests does not matter); Load does, once.
func TestNotNeededNorLoadedUntilUsed(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	needed, err := f.ImportedLibraries()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(needed, func(l string) bool { return strings.HasPrefix(l, "libvips.so") }) {
		t.Fatalf("the binary needs libvips (%v): a libvips function govips calls has no trampoline; run go generate", needed)
	}
	if mappedBeforeTests {
		t.Fatal("libvips is mapped before Load")
	}
	if vips.MajorVersion != 8 || !strings.HasPrefix(vips.Version, "8.") {
		t.Errorf("govips reads version %q (major %d) from the headers, want 8.x", vips.Version, vips.MajorVersion)
	}
	if err := lazyvips.Load(); err != nil {
		t.Fatal(err)
	}
	if !mapped(t) {
		t.Fatal("libvips is not mapped after Load")
	}
	if err := lazyvips.Load(); err != nil {
		t.Fatalf("a second Load: %v", err)
	}
}

// TestFirstCallLoads: a process whose first libvips call goes through a
// trampoline (no Load before it) makes the same thumbnail, byte for byte,
// as this one.
func TestFirstCallLoads(t *testing.T) {
	if err := lazyvips.Load(); err != nil {
		t.Fatal(err)
	}
	want := thumbnail()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("the child: %v\n%s", err, stderr.Bytes())
	}
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Fatalf("the child's thumbnail (%d bytes) differs from this process's (%d bytes)", len(got), len(want))
	}
}

// TestGeneratedFilesAreCurrent: gen.go writes the committed files again.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "gen.go", "-out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, out)
	}
	for _, name := range []string{"symbols_linux_amd64.h", "trampolines_linux_amd64.S"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what gen.go writes: run go generate ./internal/images/lazyvips", name)
		}
	}
}

// mapped reports whether libvips is in this process's memory map.
func mapped(t *testing.T) bool {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(maps, []byte(libvipsPath))
}

// thumbnail starts libvips and returns a 32-pixel PNG thumbnail of a
// 96x64 gradient.
func thumbnail() []byte {
	vips.LoggingSettings(nil, vips.LogLevelError)
	vips.Startup(&vips.Config{ConcurrencyLevel: 1})
	src := image.NewRGBA(image.Rect(0, 0, 96, 64))
	for y := range 64 {
		for x := range 96 {
			src.Set(x, y, color.RGBA{R: uint8(x * 2), G: uint8(y * 4), B: uint8(x + y), A: 255})
		}
	}
	var in bytes.Buffer
	if err := png.Encode(&in, src); err != nil {
		panic(err)
	}
	img, err := vips.LoadThumbnailFromBuffer(in.Bytes(), 32, 32, vips.InterestingNone, vips.SizeDown, nil)
	if err != nil {
		panic(err)
	}
	defer img.Close()
	out, _, err := img.ExportPng(vips.NewPngExportParams())
	if err != nil {
		panic(err)
	}
	return out
}

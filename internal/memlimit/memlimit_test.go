package memlimit

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCgroupLimit(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    int64
		source  string
		wantErr bool
	}{
		{name: "v2", files: map[string]string{"memory.max": "2147483648\n"}, want: 2 << 30, source: "cgroup v2"},
		{name: "v2 unlimited", files: map[string]string{"memory.max": "max\n"}, want: 0, source: "cgroup v2"},
		{name: "v1", files: map[string]string{"memory/memory.limit_in_bytes": "1073741824\n"}, want: 1 << 30, source: "cgroup v1"},
		{name: "v1 unlimited", files: map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n"}, want: 0, source: "cgroup v1"},
		{name: "none", files: map[string]string{}, want: 0, source: "none"},
		{name: "garbage", files: map[string]string{"memory.max": "lots"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tt.files {
				writeFile(t, filepath.Join(root, name), text)
			}
			got, source, err := CgroupLimit(root)
			if (err != nil) != tt.wantErr {
				t.Fatalf("CgroupLimit = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && (got != tt.want || source != tt.source) {
				t.Fatalf("CgroupLimit = %d from %s, want %d from %s", got, source, tt.want, tt.source)
			}
		})
	}
}

func TestMake(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "memory.max"), "2147483648")
	bounds := Settings{Ratio: 0.9, DecodeBytes: 512 << 20, CacheBytes: 256 << 20, InflightBytes: 256 << 20}

	p, err := Make(bounds, root)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(bounds.Ratio * float64(2<<30)); p.LimitBytes != want || p.GoLimitBytes != want-512<<20 || p.Source != "cgroup v2" {
		t.Fatalf("plan from a 2 GiB cgroup = %+v, want a limit of %d", p, want)
	}

	explicit := bounds
	explicit.LimitBytes = 1 << 30
	if p, err = Make(explicit, root); err != nil || p.LimitBytes != 1<<30 || p.Source != "memory.limit_bytes" {
		t.Fatalf("an explicit limit gives %+v, %v", p, err)
	}
	container := bounds
	container.ContainerLimitBytes = 4 << 30
	if p, err = Make(container, root); err != nil || p.LimitBytes != int64(bounds.Ratio*float64(4<<30)) || p.Source != "memory.container_limit_bytes" {
		t.Fatalf("a stated container limit gives %+v, %v", p, err)
	}
	if p, err = Make(bounds, t.TempDir()); err != nil || p.LimitBytes != 0 || p.GoLimitBytes != 0 {
		t.Fatalf("without any limit the plan is %+v, %v; want none", p, err)
	}

	floored := bounds
	floored.FloorBytes = 64 << 20
	if p, err = Make(floored, root); err != nil || p.FloorBytes != 64<<20 {
		t.Fatalf("a 64 MiB floor gives %+v, %v", p, err)
	}
	floored.LimitBytes, floored.FloorBytes = 1<<30, 600<<20
	_, err = Make(floored, root)
	if err == nil {
		t.Fatal("a 600 MiB floor fits in a Go limit of 512 MiB")
	}
	for _, part := range []string{"memory.gc_floor_bytes 600.00 MiB", "Go memory limit of 512.00 MiB", "images.max_decoded_bytes 512.00 MiB"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("the error %q does not show %q", err, part)
		}
	}

	tooSmall := bounds
	tooSmall.LimitBytes = 900 << 20
	_, err = Make(tooSmall, root)
	if err == nil {
		t.Fatal("bounds of 1 GiB fit in 900 MiB")
	}
	for _, part := range []string{"1024.00 MiB", "images.max_decoded_bytes 512.00 MiB", "images.cache_bytes 256.00 MiB", "pipeline.max_inflight_bytes 256.00 MiB", "900.00 MiB"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("the error %q does not show %q", err, part)
		}
	}
}

func TestApply(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	Plan{GoLimitBytes: 700 << 20}.Apply()
	if got := debug.SetMemoryLimit(-1); got != 700<<20 {
		t.Fatalf("the Go memory limit is %d after Apply, want %d", got, 700<<20)
	}
}

// ForJob is what the runtime holds plus ratio times the input, at least
// MinJobRoom, and no limit for a ratio of 0.
func TestForJob(t *testing.T) {
	for _, c := range []struct {
		held, input int64
		ratio       float64
		want        int64
	}{
		{held: 50 << 20, input: 40 << 20, ratio: 2, want: 130 << 20},
		{held: 12 << 20, input: 2000, ratio: 2, want: 12<<20 + MinJobRoom},
		{held: 12 << 20, input: 32 << 20, ratio: 2, want: 12<<20 + MinJobRoom},
		{held: 12 << 20, input: 33 << 20, ratio: 2, want: 78 << 20},
		{held: 50 << 20, input: 400 << 20, ratio: 0.5, want: 250 << 20},
		{held: 50 << 20, input: 40 << 20, ratio: 0, want: 0},
		{held: 50 << 20, input: 40 << 20, ratio: -1, want: 0},
	} {
		if got := ForJob(c.held, c.input, c.ratio); got != c.want {
			t.Errorf("ForJob(%d, %d, %v) = %d, want %d", c.held, c.input, c.ratio, got, c.want)
		}
	}
}

// HeldBytes counts a new heap allocation once it is written.
func TestHeldBytesCountsTheHeap(t *testing.T) {
	before := HeldBytes()
	b := make([]byte, 64<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	if grew := HeldBytes() - before; grew < 60<<20 {
		t.Fatalf("HeldBytes grew %d bytes over a 64 MiB allocation", grew)
	}
	runtime.KeepAlive(b)
}

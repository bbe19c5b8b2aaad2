package images

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // image.Decode of the PNG fixture in the pure Go path
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/davidbyttow/govips/v2/vips"
	"golang.org/x/image/draw"
)

// The resize benchmarks compare three ways to bring one image to 1200 px
// (JPEG q85 out): this package in process, the vipsthumbnail CLI, and pure
// Go (image decoders, x/image/draw CatmullRom, image/jpeg). Besides wall
// time (ns/op) each reports cpu-ms/op, the user+system CPU time of the
// whole process (all threads) per image, which stays meaningful on a
// shared, loaded machine. Peak RSS is measured per way in a fresh process
// that converts the image once: the test binary re-executes itself (see
// benchChildEnv) or runs the CLI, under GNU time.

// benchChildEnv makes the test binary run one conversion and exit; its
// value is "<way>:<input file>".
const benchChildEnv = "HYGIENE_IMAGES_BENCH_CHILD"

// photo is a photo-like picture: the test pattern plus pixel noise, so the
// JPEG has realistic entropy.
func photo(w, h int) *image.NRGBA {
	src := pattern(w, h, false)
	img := image.NewNRGBA(src.Rect)
	copy(img.Pix, src.Pix)
	s := uint32(12345)
	for i := range img.Pix {
		if i%4 == 3 {
			continue
		}
		s = s*1664525 + 1013904223
		img.Pix[i] = uint8(min(255, max(0, int(img.Pix[i])+int(s>>27)-16)))
	}
	return img
}

// benchFixture is one input file of the resize benchmarks.
type benchFixture struct {
	name string
	path string
	raw  []byte
}

var (
	fixturesOnce sync.Once
	fixtures     []benchFixture
	fixturesDir  string
)

// benchFixtures writes the 4000x3000 JPEG and the 2000x2000 PNG once.
func benchFixtures(b *testing.B) []benchFixture {
	fixturesOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hygiene-images-bench-")
		if err != nil {
			b.Fatal(err)
		}
		fixturesDir = dir
		for _, f := range []struct {
			name string
			raw  []byte
		}{
			{"jpeg4000x3000", encJPEG(b, photo(4000, 3000), 90)},
			{"png2000x2000", encPNG(b, opaque(photo(2000, 2000)))},
		} {
			p := filepath.Join(dir, f.name+map[bool]string{true: ".jpg", false: ".png"}[f.name[0] == 'j'])
			if err := os.WriteFile(p, f.raw, 0o600); err != nil {
				b.Fatal(err)
			}
			fixtures = append(fixtures, benchFixture{f.name, p, f.raw})
		}
	})
	return fixtures
}

// removeBenchFixtures deletes the fixture files; TestMain calls it.
func removeBenchFixtures() {
	if fixturesDir != "" {
		os.RemoveAll(fixturesDir)
	}
}

// runBenchChild performs the conversion named by benchChildEnv and
// reports whether this process is such a child.
func runBenchChild() bool {
	spec := os.Getenv(benchChildEnv)
	if spec == "" {
		return false
	}
	way, path, _ := bytes.Cut([]byte(spec), []byte(":"))
	raw, err := os.ReadFile(string(path))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	switch string(way) {
	case "govips":
		Startup(vips.LogLevelError)
		p, err := NewProcessor(Config{Workers: 1})
		if err == nil {
			var res Result
			res, err = p.Process(context.Background(), Request{Data: b64(raw)})
			if err == nil && res.Outcome != Rewritten {
				err = fmt.Errorf("outcome %v: %s", res.Outcome, res.Text)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "purego":
		if _, err := pureGoResize(raw); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	return true
}

// pureGoResize decodes, scales to fit 1200x1200 with CatmullRom and
// encodes JPEG q85, with the standard library and x/image only.
func pureGoResize(raw []byte) ([]byte, error) {
	src, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	sb := src.Bounds()
	w, h := 1200, sb.Dy()*1200/sb.Dx()
	if sb.Dy() > sb.Dx() {
		w, h = sb.Dx()*1200/sb.Dy(), 1200
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, sb, draw.Src, nil)
	var out bytes.Buffer
	err = jpeg.Encode(&out, dst, &jpeg.Options{Quality: 85})
	return out.Bytes(), err
}

// cpuTime is the user+system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per iteration since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// timedRun runs cmd under GNU time and returns its user+system CPU time
// and peak RSS in MiB.
func timedRun(b *testing.B, cmd *exec.Cmd) (time.Duration, float64) {
	b.Helper()
	out := filepath.Join(b.TempDir(), "usage")
	timed := exec.Command("/usr/bin/time", append([]string{"-f", "%U %S %M", "-o", out}, cmd.Args...)...)
	timed.Env = cmd.Env
	if msg, err := timed.CombinedOutput(); err != nil {
		b.Fatalf("%v: %v\n%s", timed.Args, err, msg)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	var user, sys float64
	var kb int
	if _, err := fmt.Sscan(string(text), &user, &sys, &kb); err != nil {
		b.Fatalf("GNU time wrote %q: %v", text, err)
	}
	return time.Duration((user + sys) * float64(time.Second)), float64(kb) / 1024
}

// childPeakRSS runs cmd under GNU time and returns its peak RSS in MiB.
// The rusage Go gets from wait4 is no use here: Go starts children with
// vfork semantics, and Linux folds the parent's peak into the child's at
// exec. GNU time forks from its own small process.
func childPeakRSS(b *testing.B, cmd *exec.Cmd) float64 {
	b.Helper()
	_, rss := timedRun(b, cmd)
	return rss
}

// selfChild returns a command re-running this test binary as a child.
func selfChild(way, path string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchChildEnv+"="+way+":"+path)
	return cmd
}

// vipsthumbnailCmd is the CLI doing the same job as Process.
func vipsthumbnailCmd(in, out string, concurrency int) *exec.Cmd {
	args := []string{in, "--size", "1200x1200", "-o", out + "[Q=85,strip,optimize_coding]"}
	if concurrency > 0 {
		args = append(args, fmt.Sprintf("--vips-concurrency=%d", concurrency))
	}
	return exec.Command("vipsthumbnail", args...)
}

func BenchmarkResize(b *testing.B) {
	if _, err := exec.LookPath("vipsthumbnail"); err != nil {
		b.Fatalf("vipsthumbnail is not installed (Debian package libvips-tools): %v", err)
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		b.Fatalf("GNU time is not installed (Debian package time); it measures CPU and peak RSS: %v", err)
	}
	for _, f := range benchFixtures(b) {
		in := b64(f.raw)
		b.Run(f.name+"/govips", func(b *testing.B) {
			p := newTestProcessor(b, Config{Workers: 1})
			rss := childPeakRSS(b, selfChild("govips", f.path))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if res, err := p.Process(context.Background(), Request{Data: in}); err != nil || res.Outcome != Rewritten {
					b.Fatalf("%v %v %s", res.Outcome, err, res.Text)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(rss, "peak-RSS-MB")
		})
		b.Run(f.name+"/govips-core", func(b *testing.B) {
			h, err := readHeader(f.raw)
			if err != nil {
				b.Fatal(err)
			}
			lim := DefaultLimits()
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if out := resize(f.raw, h, lim); out.reason != "" {
					b.Fatal(out.reason)
				}
			}
			reportCPU(b, cpu)
		})
		for _, c := range []int{0, 1} {
			name := f.name + "/vipsthumbnail"
			if c == 1 {
				name += "-concurrency1"
			}
			b.Run(name, func(b *testing.B) {
				out := filepath.Join(b.TempDir(), "out.jpg")
				b.ReportAllocs()
				var cpu time.Duration
				var rss float64
				for b.Loop() {
					c, r := timedRun(b, vipsthumbnailCmd(f.path, out, c))
					cpu += c
					rss = max(rss, r)
				}
				b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
				b.ReportMetric(rss, "peak-RSS-MB")
			})
		}
		b.Run(f.name+"/purego", func(b *testing.B) {
			rss := childPeakRSS(b, selfChild("purego", f.path))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if _, err := pureGoResize(f.raw); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(rss, "peak-RSS-MB")
		})
	}
}

// BenchmarkPoolThroughput pushes the 4000x3000 JPEG through processors
// with 1 and 2 workers from 4 concurrent callers.
func BenchmarkPoolThroughput(b *testing.B) {
	in := b64(benchFixtures(b)[0].raw)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := newTestProcessor(b, Config{Workers: workers})
			b.ReportAllocs()
			jobs := make(chan struct{})
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for range jobs {
						if res, err := p.Process(context.Background(), Request{Data: in}); err != nil || res.Outcome != Rewritten {
							b.Errorf("%v %v", res.Outcome, err)
						}
					}
				})
			}
			b.ResetTimer()
			cpu := cpuTime()
			for range b.N {
				jobs <- struct{}{}
			}
			close(jobs)
			wg.Wait()
			b.StopTimer()
			reportCPU(b, cpu)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}

// BenchmarkCacheHit measures a repeated request: hash, lookup, copy.
func BenchmarkCacheHit(b *testing.B) {
	in := b64(benchFixtures(b)[0].raw)
	p := newTestProcessor(b, Config{Workers: 1})
	if _, err := p.Process(context.Background(), Request{Data: in}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	cpu := cpuTime()
	for b.Loop() {
		if _, err := p.Process(context.Background(), Request{Data: in}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
	if s := p.Stats(); s.CacheMisses != 1 {
		b.Fatalf("%d cache misses, want 1", s.CacheMisses)
	}
}

// BenchmarkKeep measures the no-resize path: canonicalise, sniff, walk
// the header, compare.
func BenchmarkKeep(b *testing.B) {
	in := b64(encJPEG(b, photo(1000, 750), 85))
	p := newTestProcessor(b, Config{Workers: 1})
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	cpu := cpuTime()
	defer func() { reportCPU(b, cpu) }()
	for b.Loop() {
		if res, _ := p.Process(context.Background(), Request{Data: in, MimeType: "image/jpeg"}); res.Outcome != Unchanged {
			b.Fatalf("outcome %v", res.Outcome)
		}
	}
}

// BenchmarkHeader compares reading dimensions with the package's parsers
// against a lazy libvips load (header only, no pixel decode).
func BenchmarkHeader(b *testing.B) {
	for _, f := range benchFixtures(b) {
		b.Run(f.name+"/parser", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readHeader(f.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(f.name+"/vips-lazy-load", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				img, err := vips.NewImageFromBuffer(f.raw)
				if err != nil {
					b.Fatal(err)
				}
				_ = img.Width() * img.Height()
				img.Close()
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/image/draw"

	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
)

// imageRun is one way of bringing the image mix within 1200 px.
type imageRun struct {
	Way          string  `json:"way"`
	Images       int     `json:"images"`
	Seconds      float64 `json:"seconds"`
	ImagesPerSec float64 `json:"images_per_sec"`
	CPUMsPerImg  float64 `json:"cpu_ms_per_image"`
	OutBytes     int     `json:"out_bytes_per_round"`
}

// mixImage is one picture of the image mix.
type mixImage struct {
	name  string
	raw   []byte
	alpha bool
	path  string
}

// imageMix is the pictures every way converts: photos and screenshots
// above 1200 px, and one PNG with transparency.
func imageMix(o options, dir string) ([]mixImage, error) {
	specs := []struct {
		w, h  int
		alpha bool
	}{{4000, 3000, false}, {o.imageW, o.imageH, false}, {1600, 1200, false}, {2000, 2000, true}}
	if o.quick {
		specs = specs[1:2]
	}
	var mix []mixImage
	for _, s := range specs {
		ext := map[bool]string{false: "jpg", true: "png"}[s.alpha]
		m := mixImage{name: fmt.Sprintf("%dx%d.%s", s.w, s.h, ext), raw: sessiongen.Image(s.w, s.h, s.alpha), alpha: s.alpha}
		m.path = filepath.Join(dir, m.name)
		if err := os.WriteFile(m.path, m.raw, 0o600); err != nil {
			return nil, fmt.Errorf("writing the test image %s: %w", m.path, err)
		}
		mix = append(mix, m)
	}
	return mix, nil
}

// imageSuite converts the mix with this project's images package (govips,
// in process), with the vipsthumbnail CLI (one process per image) and in
// pure Go, one image at a time, repeating the mix within a time budget.
func imageSuite(ctx context.Context, o options, log io.Writer) ([]imageRun, error) {
	dir, err := os.MkdirTemp("", "hygiene-bench-images-")
	if err != nil {
		return nil, fmt.Errorf("making a temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	mix, err := imageMix(o, dir)
	if err != nil {
		return nil, err
	}
	images.Startup()
	proc, err := images.NewProcessor(images.Config{Workers: 1})
	if err != nil {
		return nil, fmt.Errorf("starting the image pool: %w", err)
	}
	defer proc.Close()
	ways := []struct {
		name    string
		convert func(m mixImage) (int, *syscall.Rusage, error)
	}{
		{"hygiene images (govips)", func(m mixImage) (int, *syscall.Rusage, error) { return viaProcessor(ctx, proc, m) }},
		{"vipsthumbnail CLI", func(m mixImage) (int, *syscall.Rusage, error) { return viaCLI(ctx, dir, m) }},
		{"pure Go (x/image/draw)", func(m mixImage) (int, *syscall.Rusage, error) { return viaPureGo(m) }},
	}
	var out []imageRun
	for _, w := range ways {
		r := imageRun{Way: w.name}
		var child time.Duration
		cpu0, start := selfCPU(), time.Now()
		for round := 0; round == 0 || (time.Since(start) < o.duration/6 && round < 20 && ctx.Err() == nil); round++ {
			r.OutBytes = 0
			for _, m := range mix {
				n, ru, err := w.convert(m)
				if err != nil {
					return out, fmt.Errorf("%s on %s: %w", w.name, m.name, err)
				}
				r.OutBytes += n
				r.Images++
				if ru != nil {
					// Only the CPU time: Go starts children vfork-style, so
					// a child's Maxrss includes this process's peak.
					child += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
				}
			}
		}
		elapsed := time.Since(start)
		cpu := selfCPU() - cpu0 + child
		r.Seconds, r.ImagesPerSec = elapsed.Seconds(), float64(r.Images)/elapsed.Seconds()
		r.CPUMsPerImg = ms(cpu) / float64(r.Images)
		fmt.Fprintf(log, "  images %s: %d images, %.2f images/s, %.0f CPU ms/image\n", w.name, r.Images, r.ImagesPerSec, r.CPUMsPerImg)
		out = append(out, r)
	}
	return out, nil
}

// viaProcessor resizes m the way the images stage does.
func viaProcessor(ctx context.Context, p *images.Processor, m mixImage) (int, *syscall.Rusage, error) {
	res, err := p.Process(ctx, images.Request{Data: []byte(base64.StdEncoding.EncodeToString(m.raw))})
	if err != nil {
		return 0, nil, err
	}
	if res.Outcome != images.Rewritten || !res.Resized {
		return 0, nil, fmt.Errorf("want a resized image, got %v %s", res.Outcome, res.Text)
	}
	return base64.StdEncoding.DecodedLen(len(res.Data)), nil, nil
}

// viaCLI runs vipsthumbnail on m: fit within 1200 px, JPEG quality 85 with
// optimised Huffman tables (PNG for transparency), metadata stripped.
func viaCLI(ctx context.Context, dir string, m mixImage) (int, *syscall.Rusage, error) {
	target := filepath.Join(dir, "out.jpg")
	spec := target + "[Q=85,optimize_coding,strip]"
	if m.alpha {
		target = filepath.Join(dir, "out.png")
		spec = target + "[strip]"
	}
	cmd := exec.CommandContext(ctx, "vipsthumbnail", m.path, "--size", "1200x1200", "-o", spec)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, nil, fmt.Errorf("vipsthumbnail: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	st, err := os.Stat(target)
	if err != nil {
		return 0, nil, err
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return int(st.Size()), ru, nil
}

// viaPureGo decodes m with the standard library, scales it with Catmull-Rom
// to fit 1200 px and encodes JPEG quality 85 (PNG for transparency).
func viaPureGo(m mixImage) (int, *syscall.Rusage, error) {
	src, _, err := image.Decode(bytes.NewReader(m.raw))
	if err != nil {
		return 0, nil, err
	}
	b := src.Bounds()
	scale := 1200 / float64(max(b.Dx(), b.Dy()))
	dst := image.NewNRGBA(image.Rect(0, 0, max(1, int(float64(b.Dx())*scale+0.5)), max(1, int(float64(b.Dy())*scale+0.5))))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	var buf bytes.Buffer
	if m.alpha {
		err = png.Encode(&buf, dst)
	} else {
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
	}
	return buf.Len(), nil, err
}

package replay

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress shows how far a replay is: a live bar with sessions/s, bytes/s
// and ETA on a terminal, plain lines at most every few seconds otherwise
// (logs and CI keep a readable record).
type progress interface {
	done(bytes int64)
	finish()
}

// newProgress picks the display for w.
func newProgress(w io.Writer, terminal bool, sessions int, totalBytes int64) progress {
	if w == nil {
		return nopProgress{}
	}
	if terminal {
		bar := progressbar.NewOptions64(totalBytes,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(fmt.Sprintf("replaying %d sessions", sessions)),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		return &barProgress{bar: bar, sessions: sessions, start: time.Now()}
	}
	return &lineProgress{w: w, sessions: sessions, total: totalBytes, start: time.Now(), every: 2 * time.Second}
}

type nopProgress struct{}

func (nopProgress) done(int64) {}
func (nopProgress) finish()    {}

type barProgress struct {
	mu       sync.Mutex
	bar      *progressbar.ProgressBar
	sessions int
	n        int
	start    time.Time
}

func (p *barProgress) done(bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	rate := float64(p.n) / time.Since(p.start).Seconds()
	p.bar.Describe(fmt.Sprintf("%d/%d sessions, %.1f sessions/s", p.n, p.sessions, rate))
	_ = p.bar.Add64(bytes)
}

func (p *barProgress) finish() { _ = p.bar.Finish() }

type lineProgress struct {
	mu       sync.Mutex
	w        io.Writer
	sessions int
	total    int64
	n        int
	bytes    int64
	start    time.Time
	last     time.Time
	every    time.Duration
}

func (p *lineProgress) done(bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	p.bytes += bytes
	if now := time.Now(); now.Sub(p.last) >= p.every || p.n == p.sessions {
		p.last = now
		p.line()
	}
}

func (p *lineProgress) line() {
	elapsed := time.Since(p.start).Seconds()
	if elapsed <= 0 {
		elapsed = 1e-9
	}
	rate := float64(p.bytes) / elapsed
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(p.total-p.bytes) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "replay: %d/%d sessions, %.1f MB of %.1f MB, %.1f sessions/s, %.1f MB/s, ETA %s\n",
		p.n, p.sessions, float64(p.bytes)/1e6, float64(p.total)/1e6, float64(p.n)/elapsed, rate/1e6, eta)
}

func (p *lineProgress) finish() {}

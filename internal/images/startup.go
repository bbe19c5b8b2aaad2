package images

import (
	"sync"
	"sync/atomic"

	"github.com/davidbyttow/govips/v2/vips"
	"github.com/hygiene-dev/hygiene/internal/images/lazyvips"
)

var (
	startupOnce sync.Once
	started     atomic.Bool // Startup has run
)

// Startup starts libvips once per process: concurrency 1 (the pool gives
// the parallelism, and one thread per image keeps output deterministic),
// operation cache off (max operations, memory and files 0) and govips
// logging at the given level, warning by default. Later calls do nothing.
// A Processor calls it with the default level when its first image needs
// libvips, if nobody did before: a process that sees no image never
// starts libvips, whose start-up maps and touches about 12 MB of its
// libraries and heap (a `worker sanitize` of a history without images),
// nor, on linux/amd64, loads it (package lazyvips). Startup loads libvips
// first, and panics with the reason when it cannot: `worker run` loads it
// at start (lazyvips.Load), so only a one-job command on a host without
// libvips gets there.
func Startup(logLevel ...vips.LogLevel) {
	startupOnce.Do(func() {
		if err := lazyvips.Load(); err != nil {
			panic("images: " + err.Error())
		}
		level := vips.LogLevelWarning
		if len(logLevel) > 0 {
			level = logLevel[0]
		}
		vips.LoggingSettings(nil, level)
		vips.Startup(&vips.Config{
			ConcurrencyLevel: 1,
			MaxCacheFiles:    0,
			MaxCacheMem:      0,
			MaxCacheSize:     0,
		})
		started.Store(true)
	})
}

// Started reports whether libvips was started (Startup ran).
func Started() bool { return started.Load() }

package images

import (
	"sync"

	"github.com/davidbyttow/govips/v2/vips"
)

var startupOnce sync.Once

// Startup starts libvips once per process: concurrency 1 (the pool gives
// the parallelism, and one thread per image keeps output deterministic),
// operation cache off (max operations, memory and files 0) and govips
// logging at the given level, warning by default. Later calls do nothing.
// NewProcessor calls it with the default level if nobody did before.
func Startup(logLevel ...vips.LogLevel) {
	startupOnce.Do(func() {
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
	})
}

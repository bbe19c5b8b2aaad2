package media

import (
	"os"
	"sync"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
	"github.com/hygiene-dev/hygiene/internal/images"
)

// shared is the image processor the images tests share. It starts on first
// use, so fuzz workers of the other rules never run libvips workers (a fuzz
// worker with an idle processor was seen minimizing inputs at a crawl).
var shared struct {
	once sync.Once
	p    *images.Processor
	err  error
}

// testProcessor returns the shared image processor.
func testProcessor(tb testing.TB) *images.Processor {
	tb.Helper()
	shared.once.Do(func() {
		shared.p, shared.err = images.NewProcessor(images.Config{Workers: 2})
	})
	if shared.err != nil {
		tb.Fatalf("start the image processor: %v", shared.err)
	}
	return shared.p
}

func TestMain(m *testing.M) {
	images.Startup(vips.LogLevelError)
	code := m.Run()
	if shared.p != nil {
		shared.p.Close()
	}
	os.Exit(code)
}

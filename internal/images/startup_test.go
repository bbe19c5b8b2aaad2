package images

import (
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
)

func TestStartupTwiceIsHarmless(t *testing.T) {
	Startup()
	Startup(vips.LogLevelDebug)
	p := newTestProcessor(t, Config{Workers: 1})
	res := process(t, p, Request{Data: b64(encJPEG(t, pattern(1300, 100, false), 80))})
	if res.Outcome != Rewritten || res.Width != 1200 {
		t.Fatalf("after repeated Startup: %v %dx%d %q", res.Outcome, res.Width, res.Height, res.Text)
	}
}

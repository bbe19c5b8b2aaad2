package images

import (
	"os"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
)

func TestMain(m *testing.M) {
	if runBenchChild() {
		os.Exit(0)
	}
	Startup(vips.LogLevelError)
	code := m.Run()
	removeBenchFixtures()
	os.Exit(code)
}

package images

import (
	"os"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
)

func TestMain(m *testing.M) {
	Startup(vips.LogLevelError)
	os.Exit(m.Run())
}

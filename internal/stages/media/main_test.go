package media

import (
	"fmt"
	"os"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
	"github.com/hygiene-dev/hygiene/internal/images"
)

// testProcessor is the image processor every images test shares.
var testProcessor *images.Processor

func TestMain(m *testing.M) {
	images.Startup(vips.LogLevelError)
	p, err := images.NewProcessor(images.Config{Workers: 2})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the image processor:", err)
		os.Exit(1)
	}
	testProcessor = p
	code := m.Run()
	p.Close()
	os.Exit(code)
}

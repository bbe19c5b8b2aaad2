package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// workerBin is the worker binary built once for the whole package.
var workerBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "hygiene-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	workerBin = filepath.Join(dir, "worker")
	build := exec.Command("go", "build", "-o", workerBin, "github.com/hygiene-dev/hygiene/cmd/worker")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "integration: building the worker binary: %v\n", err)
		return 1
	}
	before := goleak.IgnoreCurrent()
	code := m.Run()
	if code == 0 {
		// Every broker, collector and worker process of the tests is
		// stopped by now; a goroutine still running is a leak.
		if err := goleak.Find(before); err != nil {
			fmt.Fprintf(os.Stderr, "integration: %v\n", err)
			return 1
		}
	}
	return code
}

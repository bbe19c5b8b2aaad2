package pipeline

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package on leaked goroutines. The goroutines alive
// before the tests (ants' package-level default pool) are not ours.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }

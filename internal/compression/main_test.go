package compression

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that pooled decoders and the shared encoder start no goroutines.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

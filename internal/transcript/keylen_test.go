package transcript

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// TestKeyNamesArePlain: memberKeyLen counts a key the tape knows by number
// as its bytes and two quotes, which holds only while every KeyNames entry
// is written by AppendString as it is.
func TestKeyNamesArePlain(t *testing.T) {
	for _, k := range jsontape.KeyNames[1:] {
		if got, want := len(AppendString(nil, k)), len(k)+2; got != want {
			t.Errorf("key name %q encodes to %d bytes, not %d", k, got, want)
		}
	}
}

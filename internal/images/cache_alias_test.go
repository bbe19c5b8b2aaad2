package images

import (
	"testing"
	"unsafe"
)

// An entry keeps no string that views the caller's buffer: the transcript
// decoder hands out strings that alias a job's whole input, and an entry
// charged a few bytes must not keep megabytes alive.
func TestCachePutCopiesStrings(t *testing.T) {
	input := []byte("acme image/jpeg label omitted text of the job's input buffer")
	view := func(from, to int) string { return unsafe.String(&input[from], to-from) }
	c := newCache(1 << 20)
	k := cacheKey{tenant: view(0, 4), mimeType: view(5, 15), label: view(16, 21)}
	c.put(k, Result{MimeType: view(5, 15), Text: view(22, 35), Data: []byte("x")})
	inside := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(&input[0]))
		return p >= start && p < start+uintptr(len(input))
	}
	for _, el := range c.items {
		e := el.Value.(*cacheEntry)
		for _, s := range []string{e.key.tenant, e.key.mimeType, e.key.label, e.res.MimeType, e.res.Text} {
			if inside(s) {
				t.Fatalf("the cache entry's %q views the caller's buffer", s)
			}
		}
	}
	if _, ok := c.get(k); !ok {
		t.Fatal("the entry is not found under the caller's key")
	}
}

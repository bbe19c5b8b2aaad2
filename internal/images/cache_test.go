package images

import (
	"bytes"
	"context"
	"testing"
)

func TestCacheNeverSharedAcrossTenants(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 1, CacheBytes: 64 << 20})
	data := b64(encJPEG(t, pattern(1600, 1200, false), 90))
	first := process(t, p, Request{Tenant: "acme", Data: data})
	if s := p.Stats(); s.CacheMisses != 1 || s.CacheHits != 0 || s.Resized != 1 {
		t.Fatalf("after the first call: %+v", s)
	}
	other := process(t, p, Request{Tenant: "globex", Data: data})
	if s := p.Stats(); s.CacheMisses != 2 || s.CacheHits != 0 || s.Resized != 2 {
		t.Fatalf("a second tenant hit the first tenant's entry: %+v", s)
	}
	again := process(t, p, Request{Tenant: "acme", Data: data})
	if s := p.Stats(); s.CacheMisses != 2 || s.CacheHits != 1 {
		t.Fatalf("the same tenant missed its own entry: %+v", s)
	}
	if !bytes.Equal(first.Data, again.Data) || !bytes.Equal(first.Data, other.Data) {
		t.Fatal("cached and fresh results differ")
	}
	// A caller modifying its result must not change what the cache holds.
	again.Data[0] ^= 0xff
	third := process(t, p, Request{Tenant: "acme", Data: data})
	if !bytes.Equal(third.Data, first.Data) {
		t.Fatal("modifying a returned result changed the cached entry")
	}
}

func TestCacheKeyCoversLimitsMimeAndLabel(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 1, CacheBytes: 64 << 20})
	data := b64(encJPEG(t, pattern(1600, 1200, false), 90))
	process(t, p, Request{Data: data})
	process(t, p, Request{Data: data, Limits: Limits{MaxDimensionPx: 800}})
	process(t, p, Request{Data: data, MimeType: "image/png"})
	process(t, p, Request{Data: data, Label: "x"})
	if s := p.Stats(); s.CacheMisses != 4 || s.CacheHits != 0 {
		t.Fatalf("requests differing in limits, mime or label shared an entry: %+v", s)
	}
	small := process(t, p, Request{Data: data, Limits: Limits{MaxDimensionPx: 800}})
	if small.Width != 800 {
		t.Fatalf("cache hit gave width %d, want 800", small.Width)
	}
}

func TestCacheEvictsByBytes(t *testing.T) {
	c := newCache(3 * (cacheEntryOverhead + 1000))
	key := func(i byte) cacheKey { return cacheKey{tenant: "t", sum: [32]byte{i}} }
	res := Result{Outcome: Rewritten, Data: make([]byte, 1000-1)}
	for i := range byte(3) {
		c.put(key(i), res)
	}
	if c.len() != 3 {
		t.Fatalf("%d entries, want 3", c.len())
	}
	c.get(key(0)) // 0 becomes the most recently used
	c.put(key(3), res)
	if _, ok := c.get(key(1)); ok {
		t.Error("the least recently used entry was kept")
	}
	for _, i := range []byte{0, 2, 3} {
		if _, ok := c.get(key(i)); !ok {
			t.Errorf("entry %d was evicted", i)
		}
	}
	if c.bytesUsed() > 3*(cacheEntryOverhead+1000) {
		t.Errorf("cache holds %d bytes, over its bound", c.bytesUsed())
	}
	c.put(key(9), Result{Data: make([]byte, 10_000)})
	if _, ok := c.get(key(9)); ok || c.len() != 3 {
		t.Error("an entry larger than the whole cache was stored")
	}
}

// CacheBytes 0, the zero value and images.cache_bytes: 0, is no cache.
func TestCacheDisabled(t *testing.T) {
	p := newTestProcessor(t, Config{Workers: 1})
	data := b64(encJPEG(t, pattern(64, 64, false), 90))
	for range 2 {
		if _, err := p.Process(context.Background(), Request{Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if s := p.Stats(); s.CacheHits != 0 || s.CacheMisses != 0 || s.CacheBytes != 0 || s.Unchanged != 2 {
		t.Fatalf("stats with the cache off: %+v", s)
	}
}

package images

import (
	"container/list"
	"crypto/sha256"
	"strings"
	"sync"
)

// cacheKey addresses one result: the input's content hash plus everything
// else the result depends on. The tenant partitions the cache.
type cacheKey struct {
	tenant   string
	sum      [sha256.Size]byte
	limits   Limits
	mimeType string
	label    string
}

// cacheEntryOverhead approximates the bookkeeping bytes of one entry.
const cacheEntryOverhead = 256

// cache is a byte-bounded LRU of Results. Stored Data is never handed out:
// get returns a copy, so callers may modify what they receive.
type cache struct {
	mu       sync.Mutex
	maxBytes int64
	used     int64
	ll       *list.List // front = most recently used
	items    map[cacheKey]*list.Element
}

type cacheEntry struct {
	key  cacheKey
	res  Result
	size int64
}

// newCache returns a cache bounded to maxBytes; 0 disables it.
func newCache(maxBytes int64) *cache {
	return &cache{maxBytes: maxBytes, ll: list.New(), items: make(map[cacheKey]*list.Element)}
}

// entrySize is the bytes an entry is charged.
func entrySize(k cacheKey, r Result) int64 {
	return int64(len(r.Data) + len(r.Text) + len(r.MimeType) + len(k.tenant) + len(k.mimeType) + len(k.label) + cacheEntryOverhead)
}

// get returns a copy of the cached result for k.
func (c *cache) get(k cacheKey) (Result, bool) {
	c.mu.Lock()
	el, ok := c.items[k]
	if !ok {
		c.mu.Unlock()
		return Result{}, false
	}
	c.ll.MoveToFront(el)
	r := el.Value.(*cacheEntry).res
	c.mu.Unlock()
	if r.Data != nil {
		r.Data = append([]byte(nil), r.Data...)
	}
	return r, true
}

// put stores a copy of r under k, evicting least recently used entries to
// stay within maxBytes. A result larger than the whole cache is not stored.
func (c *cache) put(k cacheKey, r Result) {
	size := entrySize(k, r)
	if size > c.maxBytes {
		return
	}
	if r.Data != nil {
		r.Data = append([]byte(nil), r.Data...)
	}
	// The strings of a request can view the job's whole input buffer
	// (transcript decodes without copying): an entry that kept one would
	// keep a record of megabytes alive for an entry charged a few bytes.
	k.tenant, k.mimeType, k.label = strings.Clone(k.tenant), strings.Clone(k.mimeType), strings.Clone(k.label)
	r.MimeType, r.Text = strings.Clone(r.MimeType), strings.Clone(r.Text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		e := el.Value.(*cacheEntry)
		c.used += size - e.size
		e.res, e.size = r, size
		c.ll.MoveToFront(el)
	} else {
		c.items[k] = c.ll.PushFront(&cacheEntry{key: k, res: r, size: size})
		c.used += size
	}
	for c.used > c.maxBytes {
		el := c.ll.Back()
		e := el.Value.(*cacheEntry)
		c.ll.Remove(el)
		delete(c.items, e.key)
		c.used -= e.size
	}
}

// bytesUsed returns the bytes charged to the cache.
func (c *cache) bytesUsed() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// len returns the number of entries.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

package images

import "sync/atomic"

// Stats is a snapshot of a Processor's counters. Resized, Omitted,
// Unchanged, Rewritten, BytesIn and BytesOut count every Process result,
// cache hits included.
type Stats struct {
	Resized     int64 // results made by libvips (a subset of Rewritten)
	Rewritten   int64
	Unchanged   int64
	Omitted     int64
	CacheHits   int64
	CacheMisses int64
	BytesIn     int64
	BytesOut    int64
	// PoolRunning and PoolWaiting are the tasks on a worker and the calls
	// waiting for the decode budget or a worker, now.
	PoolRunning int64
	PoolWaiting int64
	// DecodedBytesInUse is the decode budget reserved now.
	DecodedBytesInUse int64
	// CacheBytes is the bytes the cache holds now.
	CacheBytes int64
}

// counters are the Processor's atomic result counters.
type counters struct {
	resized, rewritten, unchanged, omitted atomic.Int64
	cacheHits, cacheMisses                 atomic.Int64
	bytesIn, bytesOut                      atomic.Int64
}

// count adds one result.
func (c *counters) count(r Result) {
	switch r.Outcome {
	case Unchanged:
		c.unchanged.Add(1)
	case Rewritten:
		c.rewritten.Add(1)
		if r.Resized {
			c.resized.Add(1)
		}
	case Omitted:
		c.omitted.Add(1)
	}
	c.bytesIn.Add(int64(r.BytesIn))
	c.bytesOut.Add(int64(r.BytesOut))
}

// Stats returns a snapshot of the counters.
func (p *Processor) Stats() Stats {
	s := Stats{
		Resized:           p.stats.resized.Load(),
		Rewritten:         p.stats.rewritten.Load(),
		Unchanged:         p.stats.unchanged.Load(),
		Omitted:           p.stats.omitted.Load(),
		CacheHits:         p.stats.cacheHits.Load(),
		CacheMisses:       p.stats.cacheMisses.Load(),
		BytesIn:           p.stats.bytesIn.Load(),
		BytesOut:          p.stats.bytesOut.Load(),
		PoolRunning:       p.pool.running.Load(),
		PoolWaiting:       p.pool.waiting.Load(),
		DecodedBytesInUse: p.pool.decodedInUse.Load(),
	}
	if p.cache != nil {
		s.CacheBytes = p.cache.bytesUsed()
	}
	return s
}

package images

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Outcome says what the caller does with the image block.
type Outcome int

const (
	// Unchanged: keep the block's data byte for byte; set MimeType if it
	// differs from the declared one.
	Unchanged Outcome = iota
	// Rewritten: replace the block's data and mimeType by Result.Data and
	// Result.MimeType.
	Rewritten
	// Omitted: replace the block by a text block holding Result.Text.
	Omitted
)

// String names the outcome for logs and tests.
func (o Outcome) String() string {
	switch o {
	case Unchanged:
		return "unchanged"
	case Rewritten:
		return "rewritten"
	case Omitted:
		return "omitted"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Request is one image block to sanitise.
type Request struct {
	// Tenant partitions the cache: entries are never shared across tenants.
	Tenant string
	// Data is the block's base64 as it appears in the JSON string (already
	// JSON-unescaped); it may be URL-safe, unpadded, hold whitespace or a
	// data: prefix. Process does not modify it.
	Data []byte
	// MimeType is the declared mimeType; it is never trusted.
	MimeType string
	// Label is used in the omission texts; DefaultLabel when empty.
	Label string
	// Limits bound the image; zero fields take their defaults.
	Limits Limits
}

// Result is what to do with the block.
type Result struct {
	Outcome Outcome
	// Data is the canonical standard padded base64 (Rewritten only). The
	// caller owns it.
	Data []byte
	// MimeType is the sniffed type (Unchanged: it may differ from the
	// declared one, and then the caller rewrites the mime only) or the
	// output type (Rewritten).
	MimeType string
	// Text is the exact replacement text (Omitted only).
	Text string
	// Resized is true when libvips made Data (Rewritten only); false when
	// Data is only the canonical form of the input.
	Resized bool
	// Width and Height are the output dimensions when known.
	Width, Height int
	// BytesIn is the input base64 length; BytesOut the base64 length the
	// block carries afterwards (0 when Omitted).
	BytesIn, BytesOut int
}

// Config sizes a Processor: the one image pool and cache of a worker. It is
// the worker configuration's images.workers, images.max_decoded_bytes and
// images.cache_bytes (package config composes it into its images: section,
// beside the per-job image settings), so its yaml tags are those keys and
// DefaultConfig is their defaults.
type Config struct {
	// Workers is the number of image workers; 0 means runtime.NumCPU().
	Workers int `yaml:"workers"`
	// MaxDecodedBytes bounds the decoded bytes (pixels*bands*bytes per
	// sample, estimated from headers) of the images being processed at
	// once; 0 means DefaultConfig's. An image needing more than the whole
	// budget is Omitted.
	MaxDecodedBytes int64 `yaml:"max_decoded_bytes"`
	// CacheBytes bounds the result cache; 0 means no cache (the meaning of
	// images.cache_bytes: 0 in the worker's configuration).
	CacheBytes int64 `yaml:"cache_bytes"`
}

// DefaultConfig is the worker's image pool when its configuration says
// nothing: one worker per CPU, 512 MiB of decoded images at once, a 256 MiB
// cache of results.
func DefaultConfig() Config {
	return Config{Workers: 0, MaxDecodedBytes: 512 << 20, CacheBytes: 256 << 20}
}

// ErrClosed is returned by Process after Close.
var ErrClosed = errors.New("images: the image processor is closed")

// Processor sanitises image blocks. It is safe for concurrent use.
type Processor struct {
	pool      *pool
	cache     *cache
	closed    atomic.Bool
	closeOnce sync.Once
	stats     counters
}

// NewProcessor starts a Processor's workers. libvips is started (Startup,
// with the default log level if nobody started it before) when a worker
// first runs an image's libvips work, not here.
func NewProcessor(cfg Config) (*Processor, error) {
	if cfg.Workers < 0 {
		return nil, fmt.Errorf("images: Config.Workers is %d; it must be 0 (one per CPU) or more", cfg.Workers)
	}
	if cfg.CacheBytes < 0 {
		return nil, fmt.Errorf("images: Config.CacheBytes is %d; it must be 0 (no cache) or more", cfg.CacheBytes)
	}
	if cfg.MaxDecodedBytes < 0 {
		return nil, fmt.Errorf("images: Config.MaxDecodedBytes is %d; it must be 0 (default) or more", cfg.MaxDecodedBytes)
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.MaxDecodedBytes == 0 {
		cfg.MaxDecodedBytes = DefaultConfig().MaxDecodedBytes
	}
	p := &Processor{pool: newPool(cfg.Workers, cfg.MaxDecodedBytes)}
	if cfg.CacheBytes > 0 {
		p.cache = newCache(cfg.CacheBytes)
	}
	return p, nil
}

// Process sanitises one image block. Bad images give Omitted results; the
// error is ctx's when it ends first, or ErrClosed after Close.
func (p *Processor) Process(ctx context.Context, r Request) (Result, error) {
	if p.closed.Load() {
		return Result{}, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	lim := r.Limits.withDefaults()
	label := r.Label
	if label == "" {
		label = DefaultLabel
	}
	if len(r.Data) > lim.MaxBase64Bytes {
		res := omitted(len(r.Data), omittedText(label, reasonBase64Size(lim.MaxBase64Bytes, len(r.Data))))
		p.stats.count(res)
		return res, nil
	}
	var key cacheKey
	if p.cache != nil {
		key = cacheKey{tenant: r.Tenant, sum: sha256.Sum256(r.Data), limits: lim, mimeType: r.MimeType, label: label}
		if res, ok := p.cache.get(key); ok {
			p.stats.cacheHits.Add(1)
			p.stats.count(res)
			return res, nil
		}
		p.stats.cacheMisses.Add(1)
	}
	res, err := p.process(ctx, r.Data, lim, label)
	if err != nil {
		return Result{}, err
	}
	if p.cache != nil {
		p.cache.put(key, res)
	}
	p.stats.count(res)
	return res, nil
}

// process is Process without the cache.
func (p *Processor) process(ctx context.Context, data []byte, lim Limits, label string) (Result, error) {
	in := len(data)
	canon, raw, err := canonicalBase64(data)
	switch {
	case errors.Is(err, errEmpty):
		return omitted(in, emptyText(label)), nil
	case err != nil:
		return omitted(in, omittedText(label, reasonInvalidBase64)), nil
	}
	h, err := readHeader(raw)
	if int64(h.width)*int64(h.height) > int64(lim.MaxInputPixels) {
		return omitted(in, omittedText(label, reasonPixels(lim.MaxInputPixels, h.width, h.height))), nil
	}
	if err != nil {
		return omitted(in, omittedText(label, err.Error())), nil
	}
	if h.frames > lim.MaxFrames {
		return omitted(in, omittedText(label, reasonFrames(lim.MaxFrames, h.frames))), nil
	}
	if h.width <= lim.MaxDimensionPx && h.height <= lim.MaxDimensionPx && len(canon) <= lim.MaxBytes {
		res := Result{MimeType: h.format.mime(), Width: h.width, Height: h.height, BytesIn: in, BytesOut: len(canon)}
		if bytes.Equal(canon, data) {
			res.Outcome = Unchanged
		} else {
			res.Outcome, res.Data = Rewritten, canon
		}
		return res, nil
	}
	need := h.decodedBytes()
	if need > p.pool.limit {
		return omitted(in, omittedText(label, reasonDecodeBudget(p.pool.limit, need))), nil
	}
	var out resized
	err = p.pool.do(ctx, need, func() {
		defer func() {
			if recover() != nil {
				out = resized{reason: reasonInternal}
			}
		}()
		out = resize(raw, h, lim)
	})
	if err != nil {
		return Result{}, err
	}
	if out.reason != "" {
		return omitted(in, omittedText(label, out.reason)), nil
	}
	enc := encodeStd(out.data)
	return Result{Outcome: Rewritten, Resized: true, Data: enc, MimeType: out.mime, Width: out.width, Height: out.height, BytesIn: in, BytesOut: len(enc)}, nil
}

// omitted builds an Omitted result.
func omitted(in int, text string) Result {
	return Result{Outcome: Omitted, Text: text, BytesIn: in}
}

// Close stops the workers after their current image and waits for them.
// Process calls after Close return ErrClosed. Close is safe to call twice.
func (p *Processor) Close() {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		p.pool.close()
	})
}

package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"hash/maphash"
	"runtime"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// imageLabel is the label of spec §3.3's omission texts on this path.
const imageLabel = "session:history"

// Images returns the stage "images": the image part of spec §3.3 (steps
// 1-6) for every image block in the array content of user, toolResult and
// assistant messages, through p (which must not be nil).
//
// An image block is a block of type "image" whose data is a string. The
// spec also asks for a string mimeType; a block without one is processed
// too (its sniffed type is written), because a provider rejects an image
// without a media type. Each block ends up as one of:
//   - unchanged: byte-identical, except that a mimeType that differs from
//     the sniffed type is corrected;
//   - rewritten: new data (canonical base64, or the resized image) and
//     mimeType, every other member kept;
//   - omitted: {type:text, text:<omission text>};
//   - stale: {type:text, text:StaleImageMarker}.
//
// Provider limits beyond OpenClaw come from the target's contract
// (env.Policy.Contract.Images), each lowered by the matching setting where
// that is stricter:
//   - per message (Bedrock Converse: 20): the oldest images of a message
//     beyond the cap become stale;
//   - per request (Anthropic family: 100, or 600 when
//     options.context_window_tokens is above 200,000): the oldest images
//     beyond the cap become stale;
//   - the side limit: min(MaxDimensionPx, the contract's side cap), and
//     when more than the contract's many-images count remain (Anthropic
//     family: 20), its smaller side (2000);
//   - the size limit: min(MaxBytes, the contract's base64 cap and the
//     base64 length of its decoded cap: Bedrock's 3.75 MB).
//
// The images counted are the image blocks left after the staling, before
// processing (an image omitted later still counts), so the smaller limit
// applies whenever the provider could see that many, and a second run,
// which can only see fewer, keeps every image the first one kept.
//
// The distinct images of one job (a payload repeated in several blocks is
// processed once) go to p concurrently, at most GOMAXPROCS at a time (p's
// own pool bounds the decoding across jobs; this bounds the copies one job
// holds at once); results are written back in block order.
func Images(p *images.Processor) stage.Stage {
	return stage.Stage{Name: "images", Needs: transcript.FactImage, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		return applyImages(ctx, p, t, env)
	}}
}

// imageRef is one image block of the transcript and what became of it.
type imageRef struct {
	msg, block int
	data       []byte // JSON-unescaped base64; aliases the input when it had no escapes
	mime       string
	hasMime    bool
	stale      bool
	res        images.Result
}

func applyImages(ctx context.Context, p *images.Processor, t *transcript.Transcript, env *stage.Env) error {
	refs := collectImages(t.Messages)
	if len(refs) == 0 {
		return nil
	}
	staleBeyondCaps(refs, env.Settings.Images, env.Policy.Contract.Images, env.Settings.Request.ContextWindow())
	var live []imageRef
	var at []int // live[k] is refs[at[k]]
	for i := range refs {
		if !refs[i].stale {
			live = append(live, refs[i])
			at = append(at, i)
		}
	}
	lim := imageLimits(env.Settings.Images, env.Policy, len(live))
	first, same := distinctImages(live)
	err := fanOut(ctx, len(first), runtime.GOMAXPROCS(0), func(ctx context.Context, i int) error {
		r := &live[first[i]]
		res, err := p.Process(ctx, images.Request{Tenant: t.Tenant, Data: r.data, MimeType: r.mime, Label: imageLabel, Limits: lim})
		r.res = res
		return err
	})
	if err != nil {
		return err
	}
	for i, j := range same {
		live[i].res = live[j].res
	}
	for k, i := range at {
		refs[i].res = live[k].res
	}
	writeImages(t.Messages, refs, env.Report)
	return nil
}

// distinctImages finds the images of a job whose data repeats an earlier
// one (a screenshot sent twice): the processor's result does not depend on
// the declared type, so each distinct payload is processed once. first
// lists the index of each distinct payload; same maps a repeat to the
// index of its first occurrence.
func distinctImages(refs []imageRef) (first []int, same map[int]int) {
	seed := maphash.MakeSeed()
	seen := make(map[uint64][]int, len(refs))
	for i := range refs {
		h := maphash.Bytes(seed, refs[i].data)
		dup := -1
		for _, j := range seen[h] {
			if bytes.Equal(refs[j].data, refs[i].data) {
				dup = j
				break
			}
		}
		if dup < 0 {
			seen[h] = append(seen[h], i)
			first = append(first, i)
			continue
		}
		if same == nil {
			same = map[int]int{}
		}
		same[i] = dup
	}
	return first, same
}

// stricter returns the target's limit lowered by a setting: the setting
// when it is positive and either the target has no limit or the setting is
// smaller, else the target's (0: no limit).
func stricter(target, setting int) int {
	if setting > 0 && (target <= 0 || setting < target) {
		return setting
	}
	return target
}

// staleBeyondCaps marks stale the oldest images beyond the target's
// per-message cap in each message, then the oldest beyond its per-request
// cap (refs are in message and block order).
func staleBeyondCaps(refs []imageRef, s settings.Images, c contract.ImageLimits, contextWindowTokens int) {
	if per := c.PerMessage; per > 0 {
		for i := 0; i < len(refs); {
			j := i
			for j < len(refs) && refs[j].msg == refs[i].msg {
				j++
			}
			for k := i; k < j-per; k++ {
				refs[k].stale = true
			}
			i = j
		}
	}
	limit := c.RequestCap(contextWindowTokens)
	if limit <= 0 {
		return
	}
	limit = stricter(limit, s.MaxImagesPerRequest)
	kept := 0
	for i := len(refs) - 1; i >= 0; i-- {
		if refs[i].stale {
			continue
		}
		if kept == limit {
			refs[i].stale = true
			continue
		}
		kept++
	}
}

// imageLimits returns the limits of every image of a request carrying
// count images.
func imageLimits(s settings.Images, p policy.Policy, count int) images.Limits {
	side := s.MaxDimensionPx
	if side <= 0 {
		side = images.DefaultMaxDimensionPx
	}
	c := p.Contract.Images
	if c.ManyImagesMaxSidePx > 0 && count > stricter(c.ManyImages, s.ManyImagesThreshold) {
		side = min(side, stricter(c.ManyImagesMaxSidePx, s.ManyImagesMaxDimensionPx))
	}
	side = stricter(c.MaxSidePx, side)
	maxBytes := stricter(c.MaxBase64Bytes, int(s.MaxBytes))
	if c.MaxDecodedBytes > 0 {
		maxBytes = stricter(base64.StdEncoding.EncodedLen(c.MaxDecodedBytes), maxBytes)
	}
	return images.Limits{
		MaxDimensionPx: side,
		MaxBytes:       maxBytes,
		MaxInputPixels: int(s.MaxInputPixels),
		MaxBase64Bytes: int(s.MaxBase64Bytes),
		MaxFrames:      s.MaxFrames,
	}
}

// collectImages lists the image blocks of user, toolResult and assistant
// array content, in message and block order.
func collectImages(msgs []*transcript.Message) []imageRef {
	var refs []imageRef
	for mi, m := range msgs {
		switch m.Role() {
		case transcript.RoleUser, transcript.RoleToolResult, transcript.RoleAssistant:
		default:
			continue
		}
		blocks, ok := m.Blocks()
		if !ok {
			continue
		}
		for bi, b := range blocks {
			if b.Type() != transcript.BlockImage {
				continue
			}
			raw, _ := b.Get("data")
			data, ok := transcript.UnquoteBytes(raw)
			if !ok {
				continue
			}
			mime, hasMime := b.String("mimeType")
			refs = append(refs, imageRef{msg: mi, block: bi, data: data, mime: mime, hasMime: hasMime})
		}
	}
	return refs
}

// imageCounts is what writeImages changed.
type imageCounts struct {
	resized, canonical, mimeFixed, omitted, stale int
	bytesIn, bytesOut                             int64
}

// writeImages applies the results in block order: data and mimeType are set
// on the block itself; omitted and stale blocks are replaced in a new
// block slice of their message.
func writeImages(msgs []*transcript.Message, refs []imageRef, r *stage.Report) {
	var c imageCounts
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].msg == refs[i].msg {
			j++
		}
		writeMessageImages(msgs[refs[i].msg], refs[i:j], &c)
		i = j
	}
	r.Images.Resized += c.resized
	r.Images.Omitted += c.omitted
	r.Images.Stale += c.stale
	r.Images.BytesIn += c.bytesIn
	r.Images.BytesOut += c.bytesOut
	r.Add("images", "resized", c.resized)
	r.Add("images", "canonicalized", c.canonical)
	r.Add("images", "mime_fixed", c.mimeFixed)
	r.Add("images", "omitted", c.omitted)
	r.Add("images", "stale", c.stale)
}

// writeMessageImages applies the results of one message's images.
func writeMessageImages(m *transcript.Message, refs []imageRef, c *imageCounts) {
	blocks, _ := m.Blocks()
	var out []*transcript.Block
	replace := func(at int, b *transcript.Block) {
		if out == nil {
			out = append([]*transcript.Block(nil), blocks...)
		}
		out[at] = b
	}
	for _, ref := range refs {
		b := blocks[ref.block]
		c.bytesIn += int64(len(ref.data))
		if ref.stale {
			replace(ref.block, transcript.TextBlock(StaleImageMarker))
			c.stale++
			continue
		}
		res := ref.res
		c.bytesOut += int64(res.BytesOut)
		switch res.Outcome {
		case images.Omitted:
			replace(ref.block, transcript.TextBlock(res.Text))
			c.omitted++
		case images.Rewritten:
			b.Set("data", quoteBase64(res.Data))
			b.SetString("mimeType", res.MimeType)
			if res.Resized {
				c.resized++
			} else {
				c.canonical++
			}
		case images.Unchanged:
			if res.MimeType != "" && (!ref.hasMime || res.MimeType != ref.mime) {
				b.SetString("mimeType", res.MimeType)
				c.mimeFixed++
			}
		}
	}
	if out != nil {
		m.SetBlocks(out)
	}
}

// quoteBase64 encodes base64 text as a JSON string; its alphabet needs no
// escaping.
func quoteBase64(data []byte) []byte {
	out := make([]byte, 0, len(data)+2)
	out = append(out, '"')
	out = append(out, data...)
	return append(out, '"')
}

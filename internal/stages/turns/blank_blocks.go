package turns

import (
	"context"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// BlankBlocks is the blank-text and placeholder part of spec §3.3 (newer
// build, always on; images are the media stage's):
//   - toolResult and user array content lose blank text blocks; when nothing
//     is left (an empty array included) the content becomes one text block
//     "[empty content omitted]";
//   - assistant array content loses blank text blocks; an assistant left
//     empty is dropped, unless it carries providerReplay state;
//   - a legacy video block (mimeType video/*) of any of these roles gets its
//     base64 data canonicalised (white space removed), or becomes the text
//     "[video omitted: corrupted base64 payload]" when the payload is not
//     base64 (an empty payload included).
//
// A non-blank image block counts as content. When a drop leaves a failed
// turn at the end, §3.2's trailing trim is applied again.
func BlankBlocks() stage.Stage {
	return stage.Stage{Name: blankBlocksName, Apply: applyBlankBlocks}
}

// blankBlocksName is BlankBlocks' name.
const blankBlocksName = "blank_blocks"

// applyBlankBlocks is BlankBlocks' Apply: a one-chunk job's pass
// allocates nothing of its own (stage.EachChunk), and the list of dropped
// messages is made only when there is one.
func applyBlankBlocks(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	var sum blankCounts
	stage.EachChunk(env, len(t.Messages), t.Messages, blankBlocksOf, func(c blankCounts) {
		sum.removed, sum.placeholders, sum.videos = sum.removed+c.removed, sum.placeholders+c.placeholders, sum.videos+c.videos
		sum.drop = append(sum.drop, c.drop...)
	})
	trimmed := 0
	if len(sum.drop) > 0 {
		out := make([]*transcript.Message, 0, len(t.Messages)-len(sum.drop))
		next := 0 // the first of sum.drop not yet passed
		for i, m := range t.Messages {
			if next < len(sum.drop) && sum.drop[next] == i {
				next++
				continue
			}
			out = append(out, m)
		}
		t.Messages = out
		trimmed = trimTrailingFailures(t, env)
	}
	env.Report.Add(blankBlocksName, "blank_text_removed", sum.removed)
	env.Report.Add(blankBlocksName, "trailing_trimmed", trimmed)
	env.Report.Add(blankBlocksName, "placeholder", sum.placeholders)
	env.Report.Add(blankBlocksName, "dropped", len(sum.drop))
	env.Report.Add(blankBlocksName, "video_fixed", sum.videos)
	return nil
}

// blankCounts is what the blank-block rule changed in a run of messages,
// and the indexes of the assistants it left with nothing to say, in order
// (nil for none).
type blankCounts struct {
	removed, placeholders, videos int
	drop                          []int
}

// blankBlocksOf applies the blank-block rule to msgs[lo:hi], each message
// alone, and lists every assistant that is left with nothing to say (the
// caller removes them), so chunks of a history can run in parallel.
func blankBlocksOf(msgs []*transcript.Message, lo, hi int) blankCounts {
	var n blankCounts
	for i := lo; i < hi; i++ {
		m := msgs[i]
		switch m.Role() {
		case transcript.RoleUser, transcript.RoleToolResult:
			if blocks, ok := m.Blocks(); ok {
				blocks, v := fixVideos(blocks)
				n.videos += v
				kept, r := withoutBlankText(blocks)
				n.removed += r
				if len(kept) == 0 {
					kept = []*transcript.Block{transcript.TextBlock(emptyContentOmitted)}
					n.placeholders++
				}
				m.SetBlocks(kept)
			}
		case transcript.RoleAssistant:
			if blocks, ok := m.Blocks(); ok {
				blocks, v := fixVideos(blocks)
				n.videos += v
				kept, r := withoutBlankText(blocks)
				n.removed += r
				if len(kept) == 0 && !m.Has("providerReplay") {
					n.drop = append(n.drop, i)
				} else {
					m.SetBlocks(kept)
				}
			}
		}
	}
	return n
}

// fixVideos canonicalises legacy video blocks (a corrupt one is replaced by
// the exact omission text, in a new slice) and returns how many it changed.
func fixVideos(blocks []*transcript.Block) ([]*transcript.Block, int) {
	n := 0
	out := blocks
	for i, b := range blocks {
		if b.Type() != transcript.BlockVideo {
			continue
		}
		mime, _ := b.String("mimeType")
		data, isString := b.String("data")
		if !strings.HasPrefix(mime, "video/") || !isString {
			continue
		}
		canon, ok := canonicalBase64(data)
		switch {
		case !ok:
			if &out[0] == &blocks[0] {
				out = append([]*transcript.Block(nil), blocks...)
			}
			out[i] = transcript.TextBlock(videoCorrupted)
			n++
		case canon != data:
			b.SetString("data", canon)
			n++
		}
	}
	return out, n
}

// canonicalBase64 is §3.3's canonical form: characters <= 0x20 removed, only
// A-Z a-z 0-9 + / with at most two '=' at the end, a length that is a
// multiple of 4 and not zero.
func canonicalBase64(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] > 0x20 {
			b.WriteByte(s[i])
		}
	}
	c := b.String()
	if c == "" || len(c)%4 != 0 {
		return "", false
	}
	body := strings.TrimRight(c, "=")
	if len(c)-len(body) > 2 {
		return "", false
	}
	for i := 0; i < len(body); i++ {
		ch := body[i]
		if !(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '+' || ch == '/') {
			return "", false
		}
	}
	return c, true
}
